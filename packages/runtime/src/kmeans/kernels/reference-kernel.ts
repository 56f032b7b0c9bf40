import type { AssignKernel, AssignResult } from './assign-kernel.ts'

/** Squared L2 distance between row i of `a` and row j of `b` (both row-major, width d). */
export function rowDistanceSq(a: Float32Array, i: number, b: Float32Array, j: number, d: number): number {
  let sum = 0
  const ai = i * d
  const bj = j * d
  for (let t = 0; t < d; t++) {
    const diff = a[ai + t] - b[bj + t]
    sum += diff * diff
  }
  return sum
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
