import { UsageError } from '../../errors.ts'

/** Commander parser for a positive integer option. */
export function positiveInt(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v)
    if (!Number.isInteger(n) || n < 1)
      throw new UsageError('BAD_OPTION', `${flag} must be a positive integer, got '${v}'`)
    return n
  }
}

/** Commander parser for a non-negative integer option. */
export function nonNegativeInt(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v)
    if (!Number.isInteger(n) || n < 0)
      throw new UsageError('BAD_OPTION', `${flag} must be a non-negative integer, got '${v}'`)
    return n
  }
}

/** Commander parser for a positive number option. */
export function positiveNumber(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v)
    if (!Number.isFinite(n) || n <= 0)
      throw new UsageError('BAD_OPTION', `${flag} must be a positive number, got '${v}'`)
    return n
  }
}

/** Commander parser for a non-negative number option. */
export function nonNegativeNumber(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v)
    if (!Number.isFinite(n) || n < 0)
      throw new UsageError('BAD_OPTION', `${flag} must be a non-negative number, got '${v}'`)
    return n
  }
}

/** Commander parser for a fraction option, 0 … 1. */
export function fractionOption(flag: string): (v: string) => number {
  return (v) => {
    const n = Number(v)
    if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
      throw new UsageError('BAD_OPTION', `${flag} must be a number from 0 to 1, got '${v}'`)
    return n
  }
}

/**
 * Parses a byte size: a number with an optional binary unit, `K`/`KB`/`KiB` = 2^10, `M…` = 2^20,
 * `G…` = 2^30 (nccl-tests reads sizes the same way), e.g. `64MB` = 67108864.
 */
export function parseBytes(v: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$/i.exec(v)
  if (!m) throw new UsageError('BAD_OPTION', `expected a byte size like 512K or 64MB, got '${v}'`)
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g']
  return Math.round(Number(m[1]) * mult)
}

/** Commander parser for a byte-size option. */
export function byteSize(flag: string): (v: string) => number {
  return (v) => {
    try {
      return parseBytes(v)
    } catch {
      throw new UsageError('BAD_OPTION', `${flag}: expected a byte size like 512K or 64MB, got '${v}'`)
    }
  }
}

/** Commander parser for a comma-separated list of byte sizes (`8K,64K,1M`). */
export function byteSizeList(flag: string): (v: string) => number[] {
  const one = byteSize(flag)
  return (v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(one)
}

/** Commander parser for a comma-separated list whose items must be in `allowed`. */
export function listOf<T extends string>(flag: string, allowed: readonly T[]): (v: string) => T[] {
  return (v) => {
    const items = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    for (const i of items)
      if (!allowed.includes(i as T))
        throw new UsageError('BAD_OPTION', `${flag}: '${i}' is not one of ${allowed.join(', ')}`)
    return items as T[]
  }
}

/** Commander parser for a comma-separated list of positive integers. */
export function intList(flag: string): (v: string) => number[] {
  return (v) => v.split(',').map((s) => positiveInt(flag)(s.trim()))
}

/** Commander parser for an option that takes exactly one of `allowed`. */
export function oneOf<T extends string>(flag: string, allowed: readonly T[]): (v: string) => T {
  return (v) => {
    if (!allowed.includes(v as T))
      throw new UsageError('BAD_OPTION', `${flag}: '${v}' is not one of ${allowed.join(', ')}`)
    return v as T
  }
}

/** Commander parser for a comma-separated list of non-negative numbers. */
export function numberList(flag: string): (v: string) => number[] {
  return (v) => v.split(',').map((s) => nonNegativeNumber(flag)(s.trim()))
}
