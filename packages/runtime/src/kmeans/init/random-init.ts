import { UsageError } from '../../errors.ts'
import type { Rng } from '../../random/rng.ts'

/** Initial centroids and the data rows they were copied from. */
export interface InitResult {
  /** k × d, row-major. */
  centroids: Float32Array
  /** indices[j] is the data row centroid j was copied from. */
  indices: Int32Array
}

/** Copies the listed rows of `points` into a new k × d matrix. */
export function gatherRows(points: Float32Array, indices: Int32Array, d: number): Float32Array {
  const out = new Float32Array(indices.length * d)
  for (let j = 0; j < indices.length; j++) out.set(points.subarray(indices[j] * d, indices[j] * d + d), j * d)
  return out
}

/**
 * k distinct row indices drawn uniformly from [0, n), by Floyd's algorithm: k draws and a set
 * of k entries, so it stays cheap when n is in the millions and k in the thousands.
 */
export function sampleDistinctIndices(n: number, k: number, rng: Rng): Int32Array {
  if (!Number.isInteger(k) || k < 1 || k > n) {
    throw new UsageError('INIT_BAD_K', `random init: k = ${k} must be an integer in [1, n = ${n}]`)
  }
  const chosen = new Set<number>()
  const out = new Int32Array(k)
  let filled = 0
  for (let j = n - k; j < n; j++) {
    const r = rng.int(j + 1)
    const pick = chosen.has(r) ? j : r
    chosen.add(pick)
    out[filled++] = pick
  }
  return out
}

/** Random init: k distinct data points, chosen uniformly with the seeded `rng`. */
export function randomInit(points: Float32Array, n: number, d: number, k: number, rng: Rng): InitResult {
  const indices = sampleDistinctIndices(n, k, rng)
  return { centroids: gatherRows(points, indices, d), indices }
}
