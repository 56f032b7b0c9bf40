import { CodebookError } from '../../errors.ts'
import type { Rng } from '../../random/rng.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'

/**
 * k-means++ seeding (Arthur & Vassilvitskii): the first centroid is a uniform draw, each next one
 * is drawn with probability proportional to D(x)², the squared distance to the nearest centroid
 * chosen so far. O(n·k·d); seeded, so a seed reproduces the init.
 */
export function kmeansPlusPlus(points: Float32Array, d: number, k: number, rng: Rng): Float32Array {
  const n = d === 0 ? 0 : points.length / d
  if (k < 1 || k > n)
    throw new CodebookError('KMEANS_BAD_K', `k = ${k} must be between 1 and the number of vectors (${n})`)
  const out = new Float32Array(k * d)
  const minDist = new Float64Array(n).fill(Number.POSITIVE_INFINITY)
  let chosen = rng.int(n)
  for (let c = 0; c < k; c++) {
    out.set(points.subarray(chosen * d, (chosen + 1) * d), c * d)
    if (c === k - 1) break
    let total = 0
    for (let i = 0; i < n; i++) {
      const dist = rowDistanceSq(points, i, out, c, d)
      if (dist < minDist[i]!) minDist[i] = dist
      total += minDist[i]!
    }
    if (total === 0) {
      // Fewer distinct vectors than k: any point will do; duplicates become empty clusters later.
      chosen = rng.int(n)
      continue
    }
    let target = rng.next() * total
    chosen = n - 1
    for (let i = 0; i < n; i++) {
      target -= minDist[i]!
      if (target < 0) {
        chosen = i
        break
      }
    }
  }
  return out
}
