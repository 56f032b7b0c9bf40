/** Exact powers of ten as doubles: 10^0..10^22 are representable, so one multiply/divide rounds correctly. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i)

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

/**
 * Parses the decimal number in bytes [start, end) of `buf` without creating a string (the HOG
 * hot path: hundreds of millions of fields). Returns NaN when the bytes are not a plain decimal
 * number. Mantissas up to 2^53 with exponents up to ±22 take the exact fast path (one correctly
 * rounded double operation); anything else falls back to `Number()` on the token.
 */
export function parseDecimal(buf: Uint8Array, start: number, end: number): number {
  let i = start
  let neg = false
  let c = buf[i]
  if (c === 45 /* - */) {
    neg = true
    i++
  } else if (c === 43 /* + */) i++
  let mant = 0
  let exp10 = 0
  let digits = 0
  while (i < end && isDigit((c = buf[i]))) {
    mant = mant * 10 + (c - 48)
    digits++
    i++
  }
  if (i < end && buf[i] === 46 /* . */) {
    i++
    while (i < end && isDigit((c = buf[i]))) {
      mant = mant * 10 + (c - 48)
      exp10--
      digits++
      i++
    }
  }
  if (digits === 0) return Number.NaN
  if (i < end && (buf[i] === 101 || buf[i] === 69) /* e E */) {
    i++
    let eneg = false
    if (buf[i] === 45) {
      eneg = true
      i++
    } else if (buf[i] === 43) i++
    let e = 0
    let edigits = 0
    while (i < end && isDigit((c = buf[i]))) {
      if (e < 100000) e = e * 10 + (c - 48)
      edigits++
      i++
    }
    if (edigits === 0) return Number.NaN
    exp10 += eneg ? -e : e
  }
  if (i !== end) return Number.NaN
  if (mant <= Number.MAX_SAFE_INTEGER && exp10 >= -22 && exp10 <= 22) {
    const v = exp10 < 0 ? mant / POW10[-exp10] : mant * POW10[exp10]
    return neg ? -v : v
  }
  // The token is already known to be a well-formed decimal, so Number() agrees with its syntax.
  return Number(latin1(buf, start, end))
}

/** Parses an optionally signed decimal integer in bytes [start, end); NaN when it is not one. */
export function parseInteger(buf: Uint8Array, start: number, end: number): number {
  let i = start
  let neg = false
  if (buf[i] === 45) {
    neg = true
    i++
  } else if (buf[i] === 43) i++
  if (i >= end) return Number.NaN
  let v = 0
  for (; i < end; i++) {
    const c = buf[i]
    if (!isDigit(c)) return Number.NaN
    v = v * 10 + (c - 48)
  }
  return neg ? -v : v
}

/** True when the token spells NaN or infinity (`nan`, `-inf`, `Infinity`, …), which is a non-finite value rather than garbage. */
export function isNonFiniteWord(buf: Uint8Array, start: number, end: number): boolean {
  return /^[+-]?(nan|inf|infinity)$/i.test(latin1(buf, start, end))
}

/** The bytes [start, end) as a latin1 string, for messages and slow paths. */
export function latin1(buf: Uint8Array, start: number, end: number): string {
  return Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('latin1')
}

/** End of the token read by the last `scanDecimal` call (a module slot instead of an object per field). */
export let scanEnd = 0

function isSeparator(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12
}

/**
 * Parses the whitespace-delimited decimal starting at `start` (before `end`) in one pass,
 * finding the token's end while parsing it (`scanEnd` holds it afterwards). Same results as
 * `parseDecimal` on the token; NaN when the token is not a plain decimal.
 */
export function scanDecimal(buf: Uint8Array, start: number, end: number): number {
  let i = start
  let neg = false
  let c = buf[i]
  if (c === 45) {
    neg = true
    c = buf[++i]
  } else if (c === 43) c = buf[++i]
  let mant = 0
  let exp10 = 0
  let digits = 0
  while (i < end && c >= 48 && c <= 57) {
    mant = mant * 10 + (c - 48)
    digits++
    c = buf[++i]
  }
  if (i < end && c === 46) {
    c = buf[++i]
    while (i < end && c >= 48 && c <= 57) {
      mant = mant * 10 + (c - 48)
      exp10--
      digits++
      c = buf[++i]
    }
  }
  if (digits > 0 && (i >= end || isSeparator(c)) && mant <= Number.MAX_SAFE_INTEGER && exp10 >= -22) {
    scanEnd = i
    const v = exp10 < 0 ? mant / POW10[-exp10] : mant
    return neg ? -v : v
  }
  // Exponents, long mantissas and malformed tokens: find the token's end and take the general path.
  while (i < end && !isSeparator(buf[i])) i++
  scanEnd = i
  return parseDecimal(buf, start, i)
}
