import type { AssignKernel, AssignResult } from './assign-kernel.ts'

/**
 * Squared L2 distance between row i of `a` and row j of `b` (both row-major, width d), in
 * float64: the exact distance every kernel and bound is checked against. Four running sums
 * (dimensions t mod 4), added pairwise at the end: independent additions let V8 overlap them,
 * where one running sum waits on each previous add (≈ 2 × faster on scattered rows).
 */
export function rowDistanceSq(a: Float32Array, i: number, b: Float32Array, j: number, d: number): number {
  let s0 = 0
  let s1 = 0
  let s2 = 0
  let s3 = 0
  const ai = i * d
  const bj = j * d
  let t = 0
  for (; t + 3 < d; t += 4) {
    const x0 = a[ai + t] - b[bj + t]
    const x1 = a[ai + t + 1] - b[bj + t + 1]
    const x2 = a[ai + t + 2] - b[bj + t + 2]
    const x3 = a[ai + t + 3] - b[bj + t + 3]
    s0 += x0 * x0
    s1 += x1 * x1
    s2 += x2 * x2
    s3 += x3 * x3
  }
  for (; t < d; t++) {
    const x = a[ai + t] - b[bj + t]
    s0 += x * x
  }
  return s0 + s1 + (s2 + s3)
}

/**
 * Brute-force nearest centroid for every point: the readable reference every fast kernel is
 * tested against. Ties go to the lowest centroid index.
 */
export function assignReference(points: Float32Array, centroids: Float32Array, d: number): AssignResult {
  const n = d === 0 ? 0 : points.length / d
  const k = d === 0 ? 0 : centroids.length / d
  const labels = new Int32Array(n)
  const distancesSq = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    let best = Number.POSITIVE_INFINITY
    let bestJ = 0
    for (let j = 0; j < k; j++) {
      const dist = rowDistanceSq(points, i, centroids, j, d)
      if (dist < best) {
        best = dist
        bestJ = j
      }
    }
    labels[i] = bestJ
    distancesSq[i] = best
  }
  return { labels, distancesSq }
}

/** The reference kernel behind the {@link AssignKernel} interface. */
export function createReferenceKernel(): AssignKernel {
  return {
    name: 'reference',
    assign: async (points, centroids, d) => assignReference(points, centroids, d),
    dispose: async () => {},
  }
}
