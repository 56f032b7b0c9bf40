import type { Partials } from '../collectives/regroup/partials.ts'
import type { Rng } from '../random/rng.ts'

/** New centroids from reduced partials, and how many empty clusters were split. */
export interface CentroidUpdate {
  centroids: Float32Array
  emptyClustersSplit: number
}

/**
 * The combine step: centroid j = sums_j / count_j (in float64, stored float32). An empty cluster
 * takes a copy of the largest cluster's new centroid, perturbed by a small seeded Gaussian
 * (relative 1e-4 of each coordinate's magnitude, at least 1e-6), and the donor's count is halved
 * in the bookkeeping so several empty clusters do not all split the same one.
 */
export function updateCentroids(r: Partials, rng: Rng): CentroidUpdate {
  const { k, d, sums, counts } = r
  const centroids = new Float32Array(k * d)
  const sizes = Float64Array.from(counts)
  const empty: number[] = []
  for (let j = 0; j < k; j++) {
    const c = counts[j]!
    if (c > 0) for (let t = 0; t < d; t++) centroids[j * d + t] = sums[j * d + t]! / c
    else empty.push(j)
  }
  for (const j of empty) {
    let big = 0
    for (let i = 1; i < k; i++) if (sizes[i]! > sizes[big]!) big = i
    if (!(sizes[big]! > 0)) break
    sizes[big] = sizes[big]! / 2
    sizes[j] = sizes[big]!
    for (let t = 0; t < d; t++) {
      const v = centroids[big * d + t]!
      centroids[j * d + t] = v + rng.normal() * Math.max(1e-6, Math.abs(v) * 1e-4)
    }
  }
  return { centroids, emptyClustersSplit: empty.length }
}

/** Whether Lloyd iterations should stop after an iteration with this inertia and reassignment count. */
export function shouldStop(
  opts: { tol: number },
  iteration: number,
  inertia: number,
  prevInertia: number | null,
  reassigned: number,
): boolean {
  if (opts.tol === 0) return iteration > 1 && reassigned === 0
  if (prevInertia === null) return false
  const rel = prevInertia === 0 ? 0 : Math.abs(prevInertia - inertia) / prevInertia
  return rel <= opts.tol
}
