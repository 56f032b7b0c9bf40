import { availableParallelism } from 'node:os'
import { Index, MetricKind, ScalarKind } from 'usearch'
import type { AssignKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'

/** Tuning of the approximate assignment's HNSW index over the centroids (usearch). */
export interface ApproximateOptions {
  /** Points per map task whose approximate label is checked against the exact nearest each iteration. Default 256. */
  recallSample?: number
  /** HNSW graph degree (usearch `connectivity`). Default 16. */
  connectivity?: number
  /** Candidates kept while inserting (usearch `expansion_add`). Default 128. */
  expansionAdd?: number
  /** Candidates kept while searching (usearch `expansion_search`). Default 64. */
  expansionSearch?: number
  /** Threads of usearch's batch insert and search. Default: the machine's cores. */
  threads?: number
}

/** Points of the recall sample whose approximate label was an exact nearest centroid. */
export interface RecallCount {
  sampled: number
  matched: number
}

/** One iteration of approximate assignment. */
export interface ApproximateAssignResult {
  /** labels[i]: the centroid the index found nearest to point i (not always the exact nearest). */
  labels: Int32Array
  /**
   * Distances evaluated exactly: those of the recall sample (sample × k). The index's own
   * distance computations are not exposed by usearch's JavaScript binding and are not counted.
   */
  distancesEvaluated: number
  recall: RecallCount
}

/** Per-map-task state of approximate assignment (Philbin et al.'s approximate k-means, with HNSW). */
export interface ApproximateState {
  readonly n: number
  readonly d: number
  /** Rows of the recall sample (evenly spaced over the task's points, fixed for the run). */
  readonly sample: Int32Array
  assign(centroids: Float32Array, k: number): Promise<ApproximateAssignResult>
}

/** Evenly spaced rows, `count` of `n` at most: the same rows every iteration, no randomness to seed. */
function evenlySpaced(n: number, count: number): Int32Array {
  const m = Math.min(n, Math.max(0, count))
  return Int32Array.from({ length: m }, (_, i) => Math.floor((i * n) / m))
}

/**
 * Assigns each point to the centroid an HNSW index over the centroids returns (built anew each
 * iteration: the centroids all move), and measures recall on a fixed sample against the exact
 * nearest from `exact` (the task's kernel: the Lloyd labels). A sampled point counts as matched
 * when its approximate centroid is as near as the exact one (ties are not misses).
 */
export function createApproximateState(
  points: Float32Array,
  n: number,
  d: number,
  exact: AssignKernel,
  options: ApproximateOptions = {},
): ApproximateState {
  const sample = evenlySpaced(n, options.recallSample ?? 256)
  const samplePoints = new Float32Array(sample.length * d)
  for (let s = 0; s < sample.length; s++)
    samplePoints.set(points.subarray(sample[s]! * d, (sample[s]! + 1) * d), s * d)
  const threads = options.threads ?? availableParallelism()

  return {
    n,
    d,
    sample,
    async assign(centroids, k) {
      const index = new Index({
        dimensions: d,
        metric: MetricKind.L2sq,
        quantization: ScalarKind.F32,
        multi: false,
        connectivity: options.connectivity ?? 16,
        expansion_add: options.expansionAdd ?? 128,
        expansion_search: options.expansionSearch ?? 64,
      })
      const keys = new BigUint64Array(k)
      for (let c = 0; c < k; c++) keys[c] = BigInt(c)
      index.add(keys, centroids, threads)
      const labels = new Int32Array(n)
      if (n > 0) {
        const found = index.search(points, 1, threads)
        for (let i = 0; i < n; i++) labels[i] = Number(found.keys[i])
      }
      let matched = 0
      if (sample.length > 0) {
        const truth = (await exact.assign(samplePoints, centroids, d)).labels
        for (let s = 0; s < sample.length; s++) {
          const i = sample[s]!
          const approx = rowDistanceSq(points, i, centroids, labels[i]!, d)
          const best = rowDistanceSq(points, i, centroids, truth[s]!, d)
          if (approx <= best) matched++
        }
      }
      return { labels, distancesEvaluated: sample.length * k, recall: { sampled: sample.length, matched } }
    },
  }
}
