import { UsageError } from '../../errors.ts'

/**
 * sums[to … to + d) += sign · points[from … from + d), unrolled by 4 (V8 does not vectorise;
 * measured 59 → 22 ms for 100k × 128 rows against a loop over row views).
 */
export function addRow(
  sums: Float64Array,
  to: number,
  points: Float32Array,
  from: number,
  d: number,
  sign: 1 | -1,
): void {
  let t = 0
  for (; t + 3 < d; t += 4) {
    sums[to + t] += sign * points[from + t]
    sums[to + t + 1] += sign * points[from + t + 1]
    sums[to + t + 2] += sign * points[from + t + 2]
    sums[to + t + 3] += sign * points[from + t + 3]
  }
  for (; t < d; t++) sums[to + t] += sign * points[from + t]
}

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
    addRow(sums, c * d, points, i * d, d, 1)
  }
  return { sums, counts }
}
