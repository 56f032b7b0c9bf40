import { UsageError } from '../../errors.ts'
import type { Rng } from '../../random/rng.ts'
import type { AssignKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { gatherRows, type InitResult, sampleDistinctIndices } from './random-init.ts'
import { weightedKmeansPlusPlus } from './weighted-kmeans-plus-plus.ts'

/** Options of {@link kmeansParallelInit}. */
export interface KmeansParallelOptions {
  /** Seeded random source. */
  rng: Rng
  /**
   * Expected candidates drawn per round, ℓ. Default k: Bahmani et al. found ℓ ∈ [k/2, 2k] alike;
   * on 20,000 × 512 blobs ℓ = k gave the same or lower inertia than 2k (k = 256, 512, 1,024) for
   * half the distance passes and half the candidates to recluster.
   */
  oversampling?: number
  /** Sampling rounds. Default 5 (the paper: a handful of rounds suffices, not O(log ψ)). */
  rounds?: number
  /**
   * Kernel for the n × (new candidates) distance updates of each round; the ORT kernel makes them
   * BLAS-speed. Default: exact TypeScript loops (fine for small n).
   */
  kernel?: AssignKernel
}

/**
 * k-means|| (Bahmani et al., "Scalable K-Means++", VLDB 2012): start from one uniform point;
 * in each round sample every point independently with probability min(1, ℓ·D²(x)/ψ) (ψ = the
 * current cost), so a round adds about ℓ candidates in one pass over the data instead of k
 * sequential passes; weight each candidate by the number of points nearest to it; recluster
 * the weighted candidates down to k with k-means++. Returns k distinct data rows. If fewer
 * than k candidates were drawn (tiny or highly duplicated data), the rest are uniform
 * distinct rows.
 */
export async function kmeansParallelInit(
  points: Float32Array,
  n: number,
  d: number,
  k: number,
  options: KmeansParallelOptions,
): Promise<InitResult> {
  if (!Number.isInteger(k) || k < 1 || k > n)
    throw new UsageError('INIT_BAD_K', `k-means||: k = ${k} must be an integer in [1, n = ${n}]`)
  const { rng } = options
  const oversampling = options.oversampling ?? k
  const rounds = options.rounds ?? 5
  if (!(oversampling > 0) || !Number.isInteger(rounds) || rounds < 0) {
    throw new UsageError(
      'INIT_BAD_OPTIONS',
      `k-means||: oversampling (${oversampling}) must be > 0 and rounds (${rounds}) a non-negative integer`,
    )
  }

  const candidates: number[] = [rng.int(n)]
  const isCandidate = new Uint8Array(n)
  isCandidate[candidates[0]] = 1
  const nearestSq = new Float64Array(n).fill(Number.POSITIVE_INFINITY)
  const nearest = new Int32Array(n)
  await updateNearest(points, n, d, candidates, 0, nearestSq, nearest, options.kernel)

  for (let round = 0; round < rounds; round++) {
    let cost = 0
    for (let i = 0; i < n; i++) if (isCandidate[i] === 0) cost += nearestSq[i]
    if (cost === 0) break
    const firstNew = candidates.length
    for (let i = 0; i < n; i++) {
      // One draw per point per round, in index order, so a seed reproduces the sample exactly.
      const u = rng.next()
      if (isCandidate[i] === 0 && nearestSq[i] > 0 && u < (oversampling * nearestSq[i]) / cost) {
        candidates.push(i)
        isCandidate[i] = 1
      }
    }
    if (candidates.length === firstNew) continue
    await updateNearest(points, n, d, candidates, firstNew, nearestSq, nearest, options.kernel)
  }

  if (candidates.length <= k) {
    const indices = new Int32Array(k)
    indices.set(candidates)
    let filled = candidates.length
    if (filled < k) {
      // Top up with uniform distinct rows that are not candidates yet.
      const pool: number[] = []
      for (let i = 0; i < n; i++) if (isCandidate[i] === 0) pool.push(i)
      for (const p of sampleDistinctIndices(pool.length, k - filled, rng)) indices[filled++] = pool[p]
    }
    return { centroids: gatherRows(points, indices, d), indices }
  }

  const weights = new Float64Array(candidates.length)
  for (let i = 0; i < n; i++) weights[nearest[i]] += 1
  const candidateRows = gatherRows(points, Int32Array.from(candidates), d)
  const picked = await weightedKmeansPlusPlus(
    candidateRows,
    weights,
    candidates.length,
    d,
    k,
    rng,
    options.kernel,
  )
  const indices = new Int32Array(k)
  for (let j = 0; j < k; j++) indices[j] = candidates[picked[j]]
  return { centroids: gatherRows(points, indices, d), indices }
}

/** Lowers nearestSq / nearest with the candidates from `from` on (their own rows go to 0). */
async function updateNearest(
  points: Float32Array,
  n: number,
  d: number,
  candidates: number[],
  from: number,
  nearestSq: Float64Array,
  nearest: Int32Array,
  kernel: AssignKernel | undefined,
): Promise<void> {
  const fresh = Int32Array.from(candidates.slice(from))
  if (kernel === undefined) {
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < fresh.length; c++) {
        const v = rowDistanceSq(points, i, points, fresh[c], d)
        if (v < nearestSq[i]) {
          nearestSq[i] = v
          nearest[i] = from + c
        }
      }
    }
  } else {
    const result = await kernel.assign(points.subarray(0, n * d), gatherRows(points, fresh, d), d)
    for (let i = 0; i < n; i++) {
      if (result.distancesSq[i] < nearestSq[i]) {
        nearestSq[i] = result.distancesSq[i]
        nearest[i] = from + result.labels[i]
      }
    }
  }
  // A float32 kernel may leave a candidate a hair away from itself; it is its own nearest.
  for (let c = 0; c < fresh.length; c++) {
    nearestSq[fresh[c]] = 0
    nearest[fresh[c]] = from + c
  }
}
