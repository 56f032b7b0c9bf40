import { formatError } from '../error-codes.ts'

/**
 * The element type of a source .npy as stored on disk: what it decodes to (float64 becomes
 * float32), its width and its byte order. The store itself only ever writes `<f4`, `|u1`, `<i4`.
 */
export interface NpyElement {
  /** The dtype the rows are delivered in. */
  dtype: 'float32' | 'uint8'
  /** Bytes per stored element: 1, 4 or 8. */
  itemBytes: 1 | 4 | 8
  bigEndian: boolean
  /** The descr as written, for messages. */
  descr: string
}

/** The source element of a descr (`<f4`, `>f4`, `<f8`, `>f8`, `|u1`, with `=`/no prefix as little-endian), or UNSUPPORTED_DTYPE. */
export function npyElement(descr: string, file: string): NpyElement {
  const m = /^([<>=|]?)(f4|f8|u1)$/.exec(descr)
  if (!m)
    throw formatError(
      'UNSUPPORTED_DTYPE',
      `dtype '${descr.slice(0, 40)}' is not supported (expected float32 '<f4'/'>f4', float64 '<f8'/'>f8' or uint8 '|u1')`,
      { file },
    )
  const kind = m[2]
  // '=' is native order; every platform Node runs on here is little-endian.
  const bigEndian = m[1] === '>' && kind !== 'u1'
  if (kind === 'u1') return { dtype: 'uint8', itemBytes: 1, bigEndian: false, descr }
  return { dtype: 'float32', itemBytes: kind === 'f8' ? 8 : 4, bigEndian, descr }
}

/** What reading this element changes, for the import's notes. */
export function elementNotes(el: NpyElement): string[] {
  const notes: string[] = []
  if (el.itemBytes === 8) notes.push('converted from float64')
  if (el.bigEndian) notes.push('byte-swapped from big-endian')
  return notes
}

/**
 * Decodes stored elements into a fresh typed array in the delivered dtype: copies (which also
 * aligns), swaps big-endian bytes, narrows float64 to float32. A finite float64 beyond float32's
 * range is NON_FINITE_VALUE at `elementRow(i)` rather than a silent infinity.
 */
export function decodeElements(
  bytes: Uint8Array,
  el: NpyElement,
  file: string,
  elementRow: (i: number) => number,
): Float32Array | Uint8Array {
  const copy = new Uint8Array(bytes.length)
  copy.set(bytes)
  if (el.itemBytes === 1) return copy
  if (el.bigEndian) swapBytes(copy, el.itemBytes)
  if (el.itemBytes === 4) return new Float32Array(copy.buffer)
  const wide = new Float64Array(copy.buffer)
  const out = new Float32Array(wide.length)
  for (let i = 0; i < wide.length; i++) {
    const x = wide[i]
    const v = Math.fround(x)
    // Finite in, infinite out: the value overflows float32 (NaN and ±∞ are left to the finiteness check).
    if (v - v !== 0 && x - x === 0)
      throw formatError('NON_FINITE_VALUE', `value ${x} overflows float32`, { file, row: elementRow(i) })
    out[i] = v
  }
  return out
}

/** Reverses every `width`-byte group in place (big-endian ↔ little-endian). */
function swapBytes(b: Uint8Array, width: 4 | 8): void {
  for (let i = 0; i + width <= b.length; i += width) {
    for (let a = i, z = i + width - 1; a < z; a++, z--) {
      const t = b[a]
      b[a] = b[z]
      b[z] = t
    }
  }
}
