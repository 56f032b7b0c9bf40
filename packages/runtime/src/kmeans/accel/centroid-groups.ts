import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'

/** A partition of the k centroids into t groups, in compressed form. */
export interface CentroidGroups {
  /** Number of non-empty groups. */
  t: number
  /** groupOf[j] is the group of centroid j. */
  groupOf: Int32Array
  /** Members of group g are members[start[g]] … members[start[g + 1] − 1], ascending. */
  start: Int32Array
  members: Int32Array
}

/** Squared distances from each of k centroids to each of `groups` seeds, k × groups row-major. */
async function seedDistances(
  centroids: Float32Array,
  k: number,
  d: number,
  seeds: Float32Array,
  groups: number,
  dense: DistanceMatrixKernel | undefined,
): Promise<Float32Array | Float64Array> {
  // The grouping only steers pruning (any grouping keeps labels exact), so float32 distances do.
  if (dense) return dense.distances(centroids.subarray(0, k * d), seeds, d)
  const dist = new Float64Array(k * groups)
  for (let j = 0; j < k; j++)
    for (let g = 0; g < groups; g++) dist[j * groups + g] = rowDistanceSq(centroids, j, seeds, g, d)
  return dist
}

/**
 * Re-assigns centroids to groups of at most ⌈k / groups⌉ members: centroids closest to a seed
 * choose first, each taking its nearest seed that still has room (ties to the lowest group).
 * Equal sizes let a dense kernel treat the groups as one padded [t, G] block.
 */
function balance(k: number, dist: Float32Array | Float64Array, groups: number, groupOf: Int32Array): void {
  const capacity = Math.ceil(k / groups)
  const nearest = new Float64Array(k)
  for (let j = 0; j < k; j++) {
    let m = Number.POSITIVE_INFINITY
    for (let g = 0; g < groups; g++) if (dist[j * groups + g] < m) m = dist[j * groups + g]
    nearest[j] = m
  }
  const order = Array.from({ length: k }, (_, j) => j).sort((a, b) => nearest[a] - nearest[b] || a - b)
  const sizes = new Int32Array(groups)
  // One scan per centroid (not a sort of all groups: O(k·t), which matters at t = k/10 = 2,000).
  for (const j of order) {
    let g = -1
    let best = Number.POSITIVE_INFINITY
    for (let q = 0; q < groups; q++) {
      const v = dist[j * groups + q]
      if (sizes[q] < capacity && (v < best || g < 0)) {
        g = q
        best = v
      }
    }
    groupOf[j] = g
    sizes[g]++
  }
}

/**
 * Groups centroids by clustering them: a few Lloyd iterations over the k centroids into t
 * groups, seeded with evenly spaced centroids (deterministic: the centroids themselves are
 * already random). Yinyang's group bounds are tight when a group's members are close together.
 * Empty groups are dropped. Cost O(iterations · k · t · d), small next to one assignment when
 * the distances run on `dense` (at k = 20,000, t = 2,000 in TypeScript it was ~30 s: more than a
 * full assignment pass). `balanced`: no group gets more than ⌈k / t⌉ members (see {@link balance}).
 */
export async function groupCentroids(
  centroids: Float32Array,
  k: number,
  d: number,
  t: number,
  iterations = 5,
  balanced = false,
  dense?: DistanceMatrixKernel,
): Promise<CentroidGroups> {
  const groups = Math.max(1, Math.min(k, Math.floor(t)))
  let seeds = new Float32Array(groups * d)
  for (let g = 0; g < groups; g++) {
    const j = Math.floor((g * k) / groups)
    seeds.set(centroids.subarray(j * d, j * d + d), g * d)
  }
  const groupOf = new Int32Array(k)
  for (let it = 0; it <= iterations; it++) {
    const dist = await seedDistances(centroids, k, d, seeds, groups, dense)
    for (let j = 0; j < k; j++) {
      let best = 0
      let bestD = Number.POSITIVE_INFINITY
      for (let g = 0; g < groups; g++) {
        const v = dist[j * groups + g]
        if (v < bestD) {
          bestD = v
          best = g
        }
      }
      groupOf[j] = best
    }
    if (it === iterations) {
      if (balanced) balance(k, dist, groups, groupOf)
      break
    }
    const sums = new Float64Array(groups * d)
    const counts = new Float64Array(groups)
    for (let j = 0; j < k; j++) {
      const g = groupOf[j]
      counts[g]++
      for (let x = 0; x < d; x++) sums[g * d + x] += centroids[j * d + x]
    }
    const next = new Float32Array(groups * d)
    for (let g = 0; g < groups; g++) {
      for (let x = 0; x < d; x++)
        next[g * d + x] = counts[g] > 0 ? sums[g * d + x] / counts[g] : seeds[g * d + x]
    }
    seeds = next
  }
  // Renumber non-empty groups densely and lay members out contiguously.
  const sizes = new Int32Array(groups)
  for (let j = 0; j < k; j++) sizes[groupOf[j]]++
  const renumber = new Int32Array(groups).fill(-1)
  let used = 0
  for (let g = 0; g < groups; g++) if (sizes[g] > 0) renumber[g] = used++
  const start = new Int32Array(used + 1)
  for (let j = 0; j < k; j++) {
    groupOf[j] = renumber[groupOf[j]]
    start[groupOf[j] + 1]++
  }
  for (let g = 0; g < used; g++) start[g + 1] += start[g]
  const fill = start.slice(0, used)
  const members = new Int32Array(k)
  for (let j = 0; j < k; j++) members[fill[groupOf[j]]++] = j
  return { t: used, groupOf, start, members }
}
