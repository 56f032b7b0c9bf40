import type { DatasetFormat, VectorDtype, VectorStats } from '@codebook/shared'

/** Quantile levels reported for row norms. */
export const NORM_QUANTILES = [0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1] as const

/** Bins of the norm histogram. */
export const NORM_BINS = 32

/**
 * Accumulates VectorStats over row batches in one pass: per-dimension min/max/sum in float64,
 * and every row's L2 norm in one Float64Array (2/d of the data) so quantiles are exact. Norms are
 * float64 because a row of float32 values near ±3.4e38 has a norm past float32's range (Infinity,
 * then null in JSON); in float64 nothing a float32 row can hold overflows.
 */
export class StatsAccumulator {
  n = 0
  private d = -1
  private min = new Float64Array(0)
  private max = new Float64Array(0)
  private sum = new Float64Array(0)
  private norms = new Float64Array(1024)

  /** Adds `rows` rows of width d from `values` (row-major). */
  add(values: Float32Array | Uint8Array, rows: number, d: number): void {
    if (this.d < 0) {
      this.d = d
      this.min = new Float64Array(d).fill(Number.POSITIVE_INFINITY)
      this.max = new Float64Array(d).fill(Number.NEGATIVE_INFINITY)
      this.sum = new Float64Array(d)
    } else if (d !== this.d) {
      throw new RangeError(`StatsAccumulator: width ${d} after width ${this.d}`)
    }
    if (this.n + rows > this.norms.length) {
      const grown = new Float64Array(Math.max(this.norms.length * 2, this.n + rows))
      grown.set(this.norms.subarray(0, this.n))
      this.norms = grown
    }
    const { min, max, sum, norms } = this
    for (let r = 0; r < rows; r++) {
      const base = r * d
      let sq = 0
      for (let j = 0; j < d; j++) {
        const v = values[base + j]
        sq += v * v
        sum[j] += v
        if (v < min[j]) min[j] = v
        if (v > max[j]) max[j] = v
      }
      norms[this.n + r] = Math.sqrt(sq)
    }
    this.n += rows
  }

  /** Final stats; sorts the collected norms in place, so call once. */
  finish(meta: {
    dtype: VectorDtype
    format: DatasetFormat
    bytes: number
    hasIds: boolean
    notes?: string[]
  }): VectorStats {
    const n = this.n
    const d = Math.max(this.d, 0)
    const norms = this.norms.subarray(0, n).sort()
    const mean = Array.from(this.sum, (s) => (n > 0 ? s / n : 0))
    return {
      n,
      d,
      ...meta,
      notes: [...(meta.notes ?? [])],
      dims: { min: Array.from(this.min), max: Array.from(this.max), mean },
      norms: {
        quantiles: NORM_QUANTILES.map((q) => ({ q, value: quantileSorted(norms, q) })),
        histogram: histogram(norms, NORM_BINS),
      },
    }
  }
}

/** Quantile q of ascending `sorted` with linear interpolation between order statistics (NumPy's default). */
export function quantileSorted(sorted: Float64Array | Float32Array, q: number): number {
  const n = sorted.length
  if (n === 0) return 0
  const pos = q * (n - 1)
  const lo = Math.floor(pos)
  const hi = Math.min(lo + 1, n - 1)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
}

/**
 * Equal-width histogram of ascending `sorted` over [min, max] (the last bin includes max, as in
 * NumPy). When all values are equal the range is widened to [v - 0.5, v + 0.5] so edges increase.
 */
export function histogram(
  sorted: Float64Array | Float32Array,
  bins: number,
): { edges: number[]; counts: number[] } {
  const n = sorted.length
  let lo = n > 0 ? sorted[0] : 0
  let hi = n > 0 ? sorted[n - 1] : 1
  if (hi === lo) {
    lo -= 0.5
    hi += 0.5
  }
  const width = (hi - lo) / bins
  const edges = Array.from({ length: bins + 1 }, (_, i) => (i === bins ? hi : lo + i * width))
  const counts = new Array<number>(bins).fill(0)
  for (let i = 0; i < n; i++) {
    const b = Math.min(bins - 1, Math.floor((sorted[i] - lo) / width))
    counts[b]++
  }
  return { edges, counts }
}
