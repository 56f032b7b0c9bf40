import type { DistanceMatrixKernel, KernelPass } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import {
  type AccelAssignResult,
  type AccelOptions,
  type AccelState,
  BOUND_SLACK,
  denseRescanPays,
  iterationResult,
} from './accel-state.ts'
import { BoundedAssignment } from './bounded-assignment.ts'
import { groupCentroids } from './centroid-groups.ts'
import { centroidDrift, loosenLowerBound, rowNormsSq } from './dense-pass.ts'
import { type GroupedBoundsState, nearestBoundsPass } from './grouped-pass.ts'
import { GroupScan, RowResolver, rescanPoints, UNSETTLED } from './row-resolution.ts'
import { LazyGroupBounds } from './yinyang-lazy-bounds.ts'

/** Options of {@link createYinyangState}. */
export interface YinyangOptions extends AccelOptions {
  /** Number of centroid groups t. Default max(1, round(k / 10)), as in Ding et al. */
  groups?: number
  /** Lloyd iterations used to group the initial centroids. Default 5. */
  groupingIterations?: number
  /**
   * How points that fail the global filter are re-scanned. `auto` (default): through the dense
   * kernel when one is given and at least 64 points failed — a BLAS row of all k distances
   * costs less than a TypeScript loop over even a few percent of them; `filtered`: always the
   * group + local filters in TypeScript (fewest distances evaluated).
   */
  rescan?: 'auto' | 'filtered' | 'grouped'
  /**
   * `grouped` re-scans: a failing point whose candidate groups hold at least this fraction of
   * the k centroids gets a full dense row instead (one efficient Gemm row beats many small
   * per-group ones). Default 0.5.
   */
  fullRowFraction?: number
  /**
   * `grouped` re-scans: a failing point with at most this many centroids left after Yinyang's
   * local filter is settled with exact TypeScript distances; more go to per-group dense blocks. Default 8.
   */
  localMax?: number
  /**
   * What a dense pass (the first iteration, `auto` re-scans) fetches. `nearest-two` (default
   * when the kernel has it): the two best per point, every group bound set to the second
   * best — as cheap as one Lloyd assignment; the groups then only differ by their drifts.
   * `rows`: all k distances, exact per-group bounds (tighter, ~1.5–3× the cost per pass).
   * Ignored by `grouped` re-scans, which always start from full rows (they need exact group bounds).
   * Given `allNearestBounds` (uint8 points also held as bytes), every full pass comes from it.
   */
  denseFetch?: 'nearest-two' | 'rows'
}

/**
 * Yinyang K-means (Ding et al., ICML 2015) for one partition: the centroids are grouped once
 * (by clustering the initial centroids), and each point keeps one lower bound per group
 * (n × t, never n × k). Each iteration:
 * - global filter: the point's exact distance to its own centroid (tight upper bound) is below
 *   every group bound → label unchanged;
 * - group filter: only groups whose bound is below the best distance so far are opened;
 * - local filter: inside an opened group, a centroid j is skipped when the group's previous
 *   bound minus j's own drift already exceeds the best distance.
 * Labels are exactly those of a full scan (ties to the lowest index): every skip is strict.
 * With a dense kernel (the default `grouped` re-scans) the bounds are loosened lazily
 * ({@link LazyGroupBounds}); without one, or with `auto` / `filtered` re-scans, every iteration
 * loosens them all (the plain mode below).
 */
export class YinyangState extends BoundedAssignment {
  // Its dense passes vary with each iteration's mix of failing points; sessions open on first use.
  readonly kernelPasses: readonly KernelPass[] = []
  private readonly labels: Int32Array
  private readonly distancesSq: Float32Array
  /** Grouped dense re-scans (the default with a dense kernel): see grouped-pass.ts. */
  private readonly grouped: boolean
  /** ‖x‖² of every point (grouped mode; kept across resets). */
  private pointNormSq: Float64Array = new Float64Array(0)
  /** The groups, the n × t bounds and the arrays around them; null before the first pass. */
  private bounds: GroupedBoundsState | null = null
  private lazy: LazyGroupBounds | null = null

  constructor(
    points: Float32Array,
    n: number,
    d: number,
    private readonly options: YinyangOptions = {},
  ) {
    super('yinyang', points, n, d, options.dense)
    this.labels = new Int32Array(n)
    this.distancesSq = new Float32Array(n)
    this.grouped = options.dense !== undefined && (options.rescan ?? 'grouped') === 'grouped'
  }

  protected override forget(): void {
    this.bounds = null
    this.lazy = null
  }

  /** Groups the centroids (anew), allocates the bounds and sets them with a full pass. */
  protected async fullPass(current: Float32Array, k: number): Promise<AccelAssignResult> {
    const { points, n, d, dense, options, grouped } = this
    const t = options.groups ?? Math.max(1, Math.round(k / 10))
    const groups = await groupCentroids(current, k, d, t, options.groupingIterations ?? 5, grouped, dense)
    if (grouped && this.pointNormSq.length !== n) this.pointNormSq = rowNormsSq(points, n, d)
    const bounds: GroupedBoundsState = {
      points,
      n,
      d,
      labels: this.labels,
      distancesSq: this.distancesSq,
      ownSq: grouped ? new Float64Array(n) : new Float64Array(0),
      pointNormSq: this.pointNormSq,
      lower: new Float64Array(n * groups.t),
      groups,
    }
    this.bounds = bounds
    if (grouped)
      this.lazy = new LazyGroupBounds(bounds, k, {
        fullRowFraction: options.fullRowFraction ?? 0.15,
        localMax: options.localMax ?? 8,
      })
    let evaluated: number
    if (options.allNearestBounds !== undefined) {
      evaluated = await nearestBoundsPass(bounds, current, k, options.allNearestBounds)
      this.lazy?.refreshGlobalBounds(null)
    } else if (this.lazy !== null)
      evaluated = await this.lazy.fullPass(current, k, dense as DistanceMatrixKernel)
    else evaluated = await this.densePass(bounds, null, current, k)
    return {
      labels: this.labels.slice(),
      distancesEvaluated: evaluated,
      centroidDistancesEvaluated: k * groups.t,
      changed: n,
    }
  }

  protected async afterMove(
    previous: Float32Array,
    current: Float32Array,
    k: number,
  ): Promise<AccelAssignResult> {
    const bounds = this.bounds as GroupedBoundsState
    const { t, groupOf } = bounds.groups
    const drift = centroidDrift(previous, current, k, this.d)
    const groupDrift = new Float64Array(t)
    for (let j = 0; j < k; j++) if (drift[j] > groupDrift[groupOf[j]]) groupDrift[groupOf[j]] = drift[j]
    const before = this.labels.slice()
    const evaluated =
      this.lazy !== null
        ? await this.lazy.iterate(current, k, drift, groupDrift, this.dense as DistanceMatrixKernel)
        : await this.plainIteration(bounds, current, k, drift, groupDrift)
    return iterationResult(this.labels, before, evaluated)
  }

  /**
   * One iteration of the plain mode. Pass 1, the global filter: the exact distance to the own
   * centroid against the loosened group bounds; survivors keep their old bounds untouched (the
   * local filter needs them). Pass 2, the points that failed: a dense pass (`auto` with a kernel,
   * when the batch pays) or the group + local filters in TypeScript.
   */
  private async plainIteration(
    bounds: GroupedBoundsState,
    current: Float32Array,
    k: number,
    drift: Float64Array,
    groupDrift: Float64Array,
  ): Promise<number> {
    const { points, n, d, dense, options, labels, distancesSq } = this
    const { lower, groups } = bounds
    const { t } = groups
    const loosened = new Float64Array(t)
    const pending: number[] = []
    let evaluated = 0
    for (let i = 0; i < n; i++) {
      const base = i * t
      const ownSq = rowDistanceSq(points, i, current, labels[i], d)
      evaluated++
      distancesSq[i] = ownSq
      let globalLower = Number.POSITIVE_INFINITY
      for (let q = 0; q < t; q++) {
        loosened[q] = loosenLowerBound(lower[base + q], groupDrift[q])
        if (loosened[q] < globalLower) globalLower = loosened[q]
      }
      if (Math.sqrt(ownSq) < globalLower) lower.set(loosened, base)
      else pending.push(i)
    }
    const useDense =
      dense !== undefined &&
      (options.rescan ?? 'auto') === 'auto' &&
      denseRescanPays(pending.length, k, d, options.denseMinWork)
    if (useDense) return evaluated + (await this.densePass(bounds, Int32Array.from(pending), current, k))
    const scan = new GroupScan(points, d, groups, lower)
    const oldBound = new Float64Array(t)
    // The drift since the bounds were set is this iteration's: nothing to subtract.
    const zero = new Float64Array(k)
    for (const i of pending) {
      const base = i * t
      for (let q = 0; q < t; q++) {
        oldBound[q] = lower[base + q]
        lower[base + q] = loosenLowerBound(oldBound[q], groupDrift[q])
      }
      const a = labels[i]
      const ownSq = distancesSq[i]
      const best = scan.scan(i, current, a, Math.sqrt(ownSq), ownSq, oldBound, 1 - BOUND_SLACK, drift, zero)
      evaluated += scan.evaluated
      if (best !== a) {
        labels[i] = best
        distancesSq[i] = scan.bestSq
      }
    }
    return evaluated
  }

  /**
   * Dense pass over the listed points (all when null), exact and with every group bound rebuilt:
   * the nearest two when the kernel has them (and `denseFetch` allows), each group bound then the
   * second-best distance, full rows for the points whose two best are too close to call; else
   * full rows (in TypeScript without a kernel). Returns distances evaluated.
   */
  private async densePass(
    bounds: GroupedBoundsState,
    indices: Int32Array | null,
    centroids: Float32Array,
    k: number,
  ): Promise<number> {
    const { points, n, d, dense, options, labels, distancesSq } = this
    const { lower, groups } = bounds
    const { t, groupOf } = groups
    const resolver = new RowResolver(points, d, centroids, k)
    const groupMin = new Float64Array(t)
    const evaluated = await rescanPoints(points, n, d, centroids, k, indices, {
      dense,
      nearestTwoFirst:
        dense?.nearestTwo !== undefined && k >= 2 && (options.denseFetch ?? 'nearest-two') === 'nearest-two',
      // Always measured exactly (no bound-only settling): the exact own distance is kept.
      settleTwo: (i, best, nearestSq, secondSq, errorBound) => {
        if (resolver.settleNearestTwo(i, best, nearestSq, secondSq, errorBound, false) === UNSETTLED)
          return false
        labels[i] = best
        distancesSq[i] = resolver.settled.exactSq
        lower.fill(resolver.settled.others, i * t, i * t + t)
        return true
      },
      visitRow: (i, row, offset, errorBound) => {
        const best = resolver.nearestAndMinima(i, row, offset, errorBound, groupOf, groupMin)
        const base = i * t
        for (let q = 0; q < t; q++) lower[base + q] = Math.sqrt(groupMin[q])
        labels[i] = best
        distancesSq[i] = resolver.values[best]
      },
    })
    return evaluated + resolver.evaluated
  }
}

/** A {@link YinyangState} over the n rows of `points` (see {@link YinyangOptions}). */
export function createYinyangState(
  points: Float32Array,
  n: number,
  d: number,
  options: YinyangOptions = {},
): AccelState {
  return new YinyangState(points, n, d, options)
}
