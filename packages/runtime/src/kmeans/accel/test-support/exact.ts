import { rowDistanceSq } from '../../kernels/reference-kernel.ts'
import { accumulatePartialSums } from '../partial-sums.ts'

/** Brute force in float64: each point's nearest centroid (lowest index on ties) and both distances. */
export function bruteForce(points: Float32Array, n: number, d: number, centroids: Float32Array, k: number) {
  const best = new Int32Array(n)
  const bestSq = new Float64Array(n)
  const secondSq = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    let b = 0
    let b1 = Number.POSITIVE_INFINITY
    let b2 = Number.POSITIVE_INFINITY
    for (let j = 0; j < k; j++) {
      const v = rowDistanceSq(points, i, centroids, j, d)
      if (v < b1) {
        b2 = b1
        b1 = v
        b = j
      } else if (v < b2) b2 = v
    }
    best[i] = b
    bestSq[i] = b1
    secondSq[i] = b2
  }
  return { best, bestSq, secondSq }
}

/** The plain Lloyd update (float64 means; an empty cluster keeps its centroid). */
export function lloydUpdate(
  points: Float32Array,
  labels: Int32Array,
  previous: Float32Array,
  d: number,
  k: number,
) {
  const { sums, counts } = accumulatePartialSums(points, labels, d, k)
  const next = previous.slice()
  for (let j = 0; j < k; j++)
    if (counts[j] > 0) for (let t = 0; t < d; t++) next[j * d + t] = sums[j * d + t] / counts[j]
  return next
}
