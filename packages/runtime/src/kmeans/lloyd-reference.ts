import { createPartials } from '../collectives/regroup/partials.ts'
import { createRng } from '../random/rng.ts'
import { assignReference, rowDistanceSq } from './kernels/reference-kernel.ts'
import { shouldStop, updateCentroids } from './update-centroids.ts'

/** Result of {@link lloydReference}. */
export interface LloydResult {
  centroids: Float32Array
  iterations: number
  /** Inertia of each iteration (assignment to that iteration's input centroids). */
  inertia: number[]
  reassigned: number[]
}

/**
 * Single-process Lloyd's algorithm, the oracle the distributed run is tested against: brute-force
 * assignment, float64 sums in point order, the same empty-cluster split and stopping rules
 * (`tol` 0: until no vector changes cluster; else relative inertia change ≤ tol).
 */
export function lloydReference(
  points: Float32Array,
  d: number,
  init: Float32Array,
  opts: { maxIterations: number; tol: number; seed: number },
): LloydResult {
  const k = init.length / d
  const n = points.length / d
  let centroids: Float32Array = Float32Array.from(init)
  let labels: Int32Array = new Int32Array(n).fill(-1)
  const inertia: number[] = []
  const reassigned: number[] = []
  let prev: number | null = null
  let it = 0
  while (it < opts.maxIterations) {
    it++
    const a = assignReference(points, centroids, d)
    const part = createPartials(k, d)
    let sse = 0
    let moved = 0
    for (let i = 0; i < n; i++) {
      const j = a.labels[i]!
      if (j !== labels[i]) moved++
      part.counts[j] += 1
      for (let t = 0; t < d; t++) part.sums[j * d + t] += points[i * d + t]!
      // float64 distances, not the kernel's float32-rounded ones: the reference inertia is exact to ~1e-15.
      sse += rowDistanceSq(points, i, centroids, j, d)
    }
    labels = a.labels
    centroids = updateCentroids(part, createRng(opts.seed + it)).centroids
    inertia.push(sse)
    reassigned.push(moved)
    if (shouldStop(opts, it, sse, prev, moved)) break
    prev = sse
  }
  return { centroids, iterations: it, inertia, reassigned }
}
