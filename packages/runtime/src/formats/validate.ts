import { formatError } from './error-codes.ts'

/** Throws NON_FINITE_VALUE naming the first NaN/±Infinity in `values` (rows of width d, first row index `firstRow`). */
export function checkFinite(
  values: Float32Array,
  d: number,
  firstRow: number,
  file: string,
  lines?: Float64Array | null,
): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    // v - v is 0 for finite values and NaN for NaN and ±Infinity: one test for both.
    if (v - v !== 0) {
      const r = Math.floor(i / d)
      const where = lines ? { file, line: lines[r] } : { file, row: firstRow + r }
      throw formatError('NON_FINITE_VALUE', `column ${i - r * d} is ${v}`, where)
    }
  }
}
