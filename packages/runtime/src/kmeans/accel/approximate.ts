import { availableParallelism } from 'node:os'
import { hnswScalarTypes, runApproximateSearches } from '@codebook/shared'
import type { AssignKernel, KernelPass } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { type AccelAssignResult, type AccelState, prepareKernel } from './accel-state.ts'
import { type CentroidGraph, graphFromNearest, walkNearest } from './centroid-graph.ts'
import { floatHnswIndex, type HnswMatches, int8HnswIndex } from './hnsw-index.ts'
import { int8MapOf, quantiseRows } from './int8-index-map.ts'

/** Scalar type of the HNSW index's vectors (usearch quantization): f32 exact, f16 / i8 smaller and lossy. */
export type HnswScalar = (typeof hnswScalarTypes)[number]
/** Every index scalar, for flags and schemas. */
export const hnswScalars: readonly HnswScalar[] = hnswScalarTypes

/** Tuning of the HNSW index over the centroids (usearch). */
export interface HnswOptions {
  /** HNSW graph degree (usearch `connectivity`). Default {@link DEFAULT_HNSW.connectivity}. */
  connectivity?: number
  /** Candidates kept while inserting (usearch `expansion_add`). Default 2 × `expansionSearch`. */
  expansionAdd?: number
  /** Candidates kept while searching (usearch `expansion_search`). Default {@link DEFAULT_HNSW.expansionSearch}. */
  expansionSearch?: number
  /** Scalar type of the indexed centroids. Default f32. */
  scalar?: HnswScalar
  /** Threads of usearch's batch insert and search. Default: the machine's cores. */
  threads?: number
  /**
   * `index` (default): search a new index every iteration. `walk`: build the index only when
   * needed and otherwise walk a graph of the centroids' nearest neighbours from each point's
   * previous centroid (`centroid-graph.ts`); a worker rebuilds when its last recall sample fell
   * below `walkMinRecall`.
   */
  search?: ApproximateSearch
  /** Neighbours per centroid in the walk's graph. Default `DEFAULT_WALK_DEGREE` (32). */
  walkDegree?: number
  /** Recall below which the next iteration rebuilds the index instead of walking. Default {@link DEFAULT_WALK_MIN_RECALL}. */
  walkMinRecall?: number
}

/** Every approximate search, for flags and schemas (the shared list `CreateRun` takes). */
export const approximateSearches = runApproximateSearches
/** How an approximate iteration found each point's centroid. */
export type ApproximateSearch = (typeof approximateSearches)[number]
/**
 * Recall of the last sample below which a walking worker rebuilds its index. 0.98: a walk keeps the
 * recall it starts from, so it should start once the index (with previous labels kept) is nearly
 * exact — from 0.95 (0.9) it sat at 0.95 and ended 9.9 % above the index's inertia at n 200k,
 * k 100k; from 0.98 it ended 0.4 % above in half the time (docs/benchmarks.md).
 */
export const DEFAULT_WALK_MIN_RECALL = 0.98

/** Tuning of the approximate assignment: the index's, and the recall sample's size. */
export interface ApproximateOptions extends HnswOptions {
  /** Points per map task whose approximate label is checked against the exact nearest each iteration. Default 256. */
  recallSample?: number
  /**
   * Keep a point's previous label when that centroid is nearer than the index's answer (one or
   * two exact distances per point whose label the index changed). Default true: a miss of the
   * graph search then costs nothing when the point's old centroid is still the better one.
   */
  keepPrevious?: boolean
}

/**
 * Defaults chosen with `bench/kmeans/hnsw-profile.ts` on blobs, n = 200,000, d = 128
 * (docs/benchmarks.md, "Approximate assignment"): connectivity 16, expansion 32 (insertion 64)
 * kept 16/128/64's recall at k = 20,000 (0.9985) in 0.6× its time, and at k = 100,000 gave 0.998
 * where 16/32/16 gave 0.90 and 12/24/12 0.71.
 */
export const DEFAULT_HNSW = { connectivity: 16, expansionSearch: 32 } as const

/** An HNSW index over one iteration's centroids, shared by a worker's map tasks. */
export interface CentroidIndex {
  readonly k: number
  /** Wall time of the build, ms. */
  readonly buildMs: number
  /** The index's nearest centroid of each of the n rows of `points`. */
  nearest(points: Float32Array, n: number): Int32Array
  /** The graph of each centroid's `degree` nearest other centroids, by searching the index for the centroids themselves. */
  graph(degree: number): CentroidGraph
}

/** Query rows quantised at once for an `i8` index: 32 MB of int8 at d = 512. */
const QUERY_BLOCK_ROWS = 65_536

/**
 * Builds the HNSW index over `k` centroids (keys 0 … k − 1). Built anew each iteration: every
 * centroid moves, and usearch has no in-place update of a vector's links. An `i8` index holds
 * the centroids under Codebook's own affine map (`int8-index-map.ts`; usearch's cast would
 * compare directions, not L2 distances), its queries quantised under the same map in blocks.
 */
export function buildCentroidIndex(
  centroids: Float32Array,
  k: number,
  d: number,
  options: HnswOptions = {},
): CentroidIndex {
  const threads = options.threads ?? availableParallelism()
  const expansionSearch = options.expansionSearch ?? DEFAULT_HNSW.expansionSearch
  const started = performance.now()
  const settings = {
    dimensions: d,
    connectivity: options.connectivity ?? DEFAULT_HNSW.connectivity,
    expansionAdd: options.expansionAdd ?? 2 * expansionSearch,
    expansionSearch,
  }
  const keys = new BigUint64Array(k)
  for (let c = 0; c < k; c++) keys[c] = BigInt(c)
  const scalar = options.scalar ?? 'f32'
  let search: (rows: Float32Array, from: number, to: number, count: number) => HnswMatches
  let searchCentroids: (count: number) => HnswMatches
  if (scalar === 'i8') {
    const index = int8HnswIndex(settings)
    const map = int8MapOf(centroids, k, d)
    const indexed = quantiseRows(centroids, d, map, 0, k)
    if (k > 0) index.add(keys, indexed, threads)
    search = (rows, from, to, count) => index.search(quantiseRows(rows, d, map, from, to), count, threads)
    searchCentroids = (count) => index.search(indexed, count, threads)
  } else {
    const index = floatHnswIndex(settings, scalar)
    if (k > 0) index.add(keys, centroids.subarray(0, k * d), threads)
    search = (rows, from, to, count) => index.search(rows.subarray(from * d, to * d), count, threads)
    searchCentroids = (count) => index.search(centroids.subarray(0, k * d), count, threads)
  }
  const buildMs = performance.now() - started
  return {
    k,
    buildMs,
    nearest(points, n) {
      const labels = new Int32Array(n)
      const block = scalar === 'i8' ? QUERY_BLOCK_ROWS : Math.max(1, n)
      for (let from = 0; from < n; from += block) {
        const to = Math.min(n, from + block)
        const found = search(points, from, to, 1)
        for (let i = from; i < to; i++) labels[i] = Number(found.keys[i - from])
      }
      return labels
    },
    graph(degree) {
      const started = performance.now()
      const perRow = Math.min(degree + 1, k)
      const found = searchCentroids(perRow)
      return graphFromNearest(k, degree, found.keys, perRow, found.counts, started)
    },
  }
}

/** Points of the recall sample whose approximate label was an exact nearest centroid. */
export interface RecallCount {
  sampled: number
  matched: number
  /** Σ over the sample of the squared distance to the approximate centroid, and to the exact nearest. */
  approximateSq: number
  exactSq: number
}

/**
 * Scores a recall sample: point rows[s] labelled labels[rows[s]] by the index, whose exact nearest
 * centroid is truth[s]. A tie with the exact nearest counts as a hit.
 */
export function scoreRecall(
  points: Float32Array,
  rows: ArrayLike<number>,
  labels: ArrayLike<number>,
  truth: ArrayLike<number>,
  centroids: Float32Array,
  d: number,
): RecallCount {
  const count: RecallCount = { sampled: rows.length, matched: 0, approximateSq: 0, exactSq: 0 }
  for (let s = 0; s < rows.length; s++) {
    const i = rows[s]!
    const approx = rowDistanceSq(points, i, centroids, labels[i]!, d)
    const best = rowDistanceSq(points, i, centroids, truth[s]!, d)
    if (approx <= best) count.matched++
    count.approximateSq += approx
    count.exactSq += best
  }
  return count
}

/** The sum of two recall samples' counts (tasks of a worker, workers of an iteration). */
export function addRecall(a: RecallCount | undefined, b: RecallCount): RecallCount {
  if (a === undefined) return { ...b }
  return {
    sampled: a.sampled + b.sampled,
    matched: a.matched + b.matched,
    approximateSq: a.approximateSq + b.approximateSq,
    exactSq: a.exactSq + b.exactSq,
  }
}

/**
 * An iteration's figures from its recall counts: recall (1 when nothing was sampled) and the
 * inertia gap Σ approximate ÷ Σ exact − 1 (0 when nothing was sampled).
 */
export function recallFigures(c: RecallCount | undefined): { recall: number; inertiaGap: number } {
  if (c === undefined || c.sampled === 0) return { recall: 1, inertiaGap: 0 }
  return {
    recall: c.matched / c.sampled,
    inertiaGap: c.exactSq > 0 ? Math.max(0, c.approximateSq / c.exactSq - 1) : 0,
  }
}

/** z of a two-sided 95 % interval: {@link walkMayContinue}'s confidence. */
const WILSON_Z = 1.96

/**
 * The upper end of the 95 % Wilson score interval of a recall sample (`matched` of `sampled`):
 * the largest true recall the sample does not rule out. 1 for an empty sample.
 */
export function recallUpperBound(c: RecallCount): number {
  if (c.sampled === 0) return 1
  const n = c.sampled
  const p = c.matched / n
  const z2 = WILSON_Z * WILSON_Z
  const centre = p + z2 / (2 * n)
  const spread = WILSON_Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  return Math.min(1, (centre + spread) / (1 + z2 / n))
}

/**
 * Whether a worker walks the centroid graph in its next iteration, from its last recall sample:
 * after an index search, once the sampled recall reaches `floor` (a walk keeps the recall it
 * starts from, so it starts only from a measured one); while walking, until even the sample's
 * {@link recallUpperBound} falls below `floor`. A sample of 256 reads a recall of 0.99 as
 * 0.99 ± 0.006: tested bare against a floor of 0.98 it would rebuild now and then on noise alone,
 * and at k = 10⁶ a rebuild is a 26-minute index build. With no sample at all (no map task
 * reported one; an empty one counts as recall 1) nothing says the walk fails: it walks.
 */
export function walkMayContinue(last: RecallCount | undefined, walked: boolean, floor: number): boolean {
  if (last === undefined) return true
  if (!walked) return recallFigures(last).recall >= floor
  return recallUpperBound(last) >= floor
}

/** One iteration of approximate assignment. */
export interface ApproximateAssignResult extends AccelAssignResult {
  /** labels[i]: the centroid the index found nearest to point i (not always the exact nearest). */
  labels: Int32Array
  /**
   * Distances evaluated exactly: those of the recall sample (sample × k) and of a graph walk. The
   * index's own distance computations are not exposed by usearch's JavaScript binding and are not counted.
   */
  distancesEvaluated: number
  /** Whether the labels came from an index search or a graph walk. */
  search: ApproximateSearch
  recall: RecallCount
  /** Wall time of the index search over the task's points, and of the recall check, ms. */
  searchMs: number
  recallMs: number
}

/**
 * Per-map-task state of approximate assignment (Philbin et al.'s approximate k-means, with
 * HNSW): an {@link AccelState} whose iteration context is what the worker built for all its
 * tasks. `assign(centroids, k, index?, graph?)` labels the task's points by walking `graph` from
 * their previous labels when a graph is given and the task has labels for this k; else through
 * `index` (built over `centroids`; the worker builds one per iteration for all its tasks), or
 * through an index of its own when none is given.
 */
export interface ApproximateState
  extends AccelState<[index?: CentroidIndex, graph?: CentroidGraph], ApproximateAssignResult> {
  /** Rows of the recall sample (evenly spaced over the task's points, fixed for the run). */
  readonly sample: Int32Array
}

/** Evenly spaced rows, `count` of `n` at most: the same rows every iteration, no randomness to seed. */
function evenlySpaced(n: number, count: number): Int32Array {
  const m = Math.min(n, Math.max(0, count))
  return Int32Array.from({ length: m }, (_, i) => Math.floor((i * n) / m))
}

/**
 * Assigns each point to the centroid an HNSW index over the centroids returns (built anew each
 * iteration: the centroids all move) or, when nearer, to its previous label's centroid — or, given
 * a centroid graph, walks it from the previous label — and measures recall on a fixed sample against the exact
 * nearest from `exact` (the task's kernel: the Lloyd labels). A sampled point counts as matched
 * when its approximate centroid is as near as the exact one (ties are not misses).
 */
export class ApproximateAssignment implements ApproximateState {
  readonly name = 'approximate'
  /** The recall check's exact labels come from the kernel's assignment. */
  readonly kernelPasses: readonly KernelPass[] = ['assign']
  readonly sample: Int32Array
  private readonly samplePoints: Float32Array
  /** Previous labels are used (kept against the index's answer, or walked from). */
  private readonly remember: boolean
  /** The last call's labels and k, null before the first or after `reset`. */
  private last: { k: number; labels: Int32Array } | null = null

  constructor(
    private readonly points: Float32Array,
    readonly n: number,
    readonly d: number,
    private readonly exact: AssignKernel,
    private readonly options: ApproximateOptions = {},
  ) {
    this.sample = evenlySpaced(n, options.recallSample ?? 256)
    this.samplePoints = new Float32Array(this.sample.length * d)
    for (let s = 0; s < this.sample.length; s++)
      this.samplePoints.set(points.subarray(this.sample[s]! * d, (this.sample[s]! + 1) * d), s * d)
    this.remember = (options.keepPrevious ?? true) || options.search === 'walk'
  }

  async prepare(k: number): Promise<void> {
    await prepareKernel(this.exact, this.d, k, this.kernelPasses)
  }

  reset(): void {
    this.last = null
  }

  async assign(
    centroids: Float32Array,
    k: number,
    shared?: CentroidIndex,
    graph?: CentroidGraph,
  ): Promise<ApproximateAssignResult> {
    const { points, n, d, sample } = this
    const before = this.last?.k === k ? this.last.labels : null
    const previous = this.remember ? before : null
    let t = performance.now()
    let labels: Int32Array
    let walked = 0
    let search: ApproximateSearch = 'index'
    if (graph && graph.k === k && previous) {
      search = 'walk'
      const walk = walkNearest(points, n, d, centroids, graph, previous)
      labels = walk.labels
      walked = walk.distancesEvaluated
    } else {
      const index = shared ?? buildCentroidIndex(centroids, k, d, this.options)
      t = performance.now()
      labels = index.nearest(points, n)
      if (previous) this.keepNearer(labels, previous, centroids)
    }
    this.last = { k, labels: labels.slice() }
    const searchMs = performance.now() - t
    t = performance.now()
    const truth = sample.length > 0 ? (await this.exact.assign(this.samplePoints, centroids, d)).labels : []
    return {
      labels,
      distancesEvaluated: sample.length * k + walked,
      centroidDistancesEvaluated: 0,
      changed: before === null ? n : countChanged(labels, before),
      search,
      recall: scoreRecall(points, sample, labels, truth, centroids, d),
      searchMs,
      recallMs: performance.now() - t,
    }
  }

  /** labels[i] = old[i] where the old centroid is strictly nearer (a tie keeps the index's answer). */
  private keepNearer(labels: Int32Array, old: Int32Array, centroids: Float32Array): void {
    const { points, n, d } = this
    for (let i = 0; i < n; i++) {
      const was = old[i]!
      if (was === labels[i]) continue
      if (rowDistanceSq(points, i, centroids, was, d) < rowDistanceSq(points, i, centroids, labels[i]!, d))
        labels[i] = was
    }
  }
}

/** How many of `labels` differ from `before`. */
function countChanged(labels: Int32Array, before: Int32Array): number {
  let changed = 0
  for (let i = 0; i < labels.length; i++) if (labels[i] !== before[i]) changed++
  return changed
}

/** An {@link ApproximateAssignment} over the n rows of `points`, its recall checked on `exact`. */
export function createApproximateState(
  points: Float32Array,
  n: number,
  d: number,
  exact: AssignKernel,
  options: ApproximateOptions = {},
): ApproximateState {
  return new ApproximateAssignment(points, n, d, exact, options)
}
