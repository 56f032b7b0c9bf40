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
import { centroidDrift, forEachDistanceRow, rowNormsSq } from './dense-pass.ts'
import { fullPassBeats, type HamerlyBounds, movedSetBounds, planMovedSet } from './hamerly-moved-set.ts'
import { neighbourRescan } from './neighbour-rescan.ts'
import { RowResolver, rescanPoints, UNSETTLED } from './row-resolution.ts'

/**
 * Half the distance from each centroid to its nearest other centroid, s(c): a point closer
 * than s(c) to its centroid c cannot be closer to any other. Computed from a dense k × k block
 * when a dense kernel is given (lowered by its error bound), else exactly.
 */
export async function halfNearestCentroidDistance(
  centroids: Float32Array,
  k: number,
  d: number,
  dense: DistanceMatrixKernel | undefined,
): Promise<Float64Array> {
  const half = new Float64Array(k)
  await forEachDistanceRow(centroids, k, d, centroids, k, null, dense, (j, row, offset, errorBound) => {
    let m = Number.POSITIVE_INFINITY
    for (let o = 0; o < k; o++) if (o !== j && row[offset + o] < m) m = row[offset + o]
    half[j] = 0.5 * Math.sqrt(Math.max(0, m - errorBound)) * (1 - BOUND_SLACK)
  })
  return half
}

/** Options of {@link createHamerlyState}. */
export interface HamerlyOptions extends AccelOptions {
  /**
   * Moved-set iterations (default: on when the dense kernel has `nearestTwo` and
   * `nearestExcluding`): each iteration the m centroids that drifted most are re-measured densely
   * for every point (one Gemm over m < k centroids, often all that moved), so a lower bound only
   * has to absorb the (m + 1)-th largest drift; m is chosen per iteration by a cost model over
   * the points' bound slack, and an iteration where nearly every point fails re-scans all in one
   * pass.
   * Off: classic Hamerly (the bound absorbs the largest drift, plus the s(c) test).
   */
  movedSet?: boolean
  /**
   * Large re-scans through centroid neighbourhoods ({@link neighbourRescan}) when their points
   * share few centroids: one dense pass over those centroids' rows of centroid–centroid distances
   * and a few exact distances per point, instead of a dense row of k per point. Default: on from
   * k ≥ {@link NEIGHBOUR_RESCAN_MIN_K}.
   */
  neighbours?: boolean
}

/**
 * From this k the neighbourhood re-scan is on by default. At k = 20,000 (blobs, n = 200,000) it
 * replaced the second iteration's full pass; below a few thousand centroids a dense row is cheap
 * and the moved-set plan already does well (k = 1,000 measurements above).
 */
export const NEIGHBOUR_RESCAN_MIN_K = 4_096

/** Bounds are widened by this factor (upper) or narrowed (lower) against float64 rounding. */
const UP = 1 + BOUND_SLACK
const DOWN = 1 - BOUND_SLACK

/** Point and centroid–centroid distances a re-scan evaluated. */
interface RescanCount {
  evaluated: number
  centroidDistancesEvaluated: number
}

/**
 * Hamerly's exact K-means (2010) for one partition. Per point: its label, an upper bound on the
 * distance to its centroid and a lower bound on the distance to every other one; both move by
 * the centroids' drifts each iteration, so a point whose upper bound stays below its lower bound
 * costs O(1). Otherwise the upper bound is tightened with one exact distance, and only if that
 * still fails is the point re-scanned; re-scans are batched through the dense kernel when one is
 * given. No per-point exact distance is kept: the map task derives the inertia from its cluster
 * sums, which is what lets late iterations skip almost all n·d work.
 */
export class HamerlyState extends BoundedAssignment {
  readonly kernelPasses: readonly KernelPass[]
  /** Moved-set iterations (see {@link HamerlyOptions.movedSet}): the kernel has both passes it needs. */
  private readonly movedSet: boolean
  private readonly bounds: HamerlyBounds
  /** ‖x‖² of every point, for the dense kernel's error bound (kept from the first dense pass). */
  private pointNormsSq: Float64Array | undefined

  constructor(
    points: Float32Array,
    n: number,
    d: number,
    private readonly options: HamerlyOptions = {},
  ) {
    super('hamerly', points, n, d, options.dense)
    const { dense } = options
    this.movedSet =
      (options.movedSet ?? true) && dense?.nearestTwo !== undefined && dense.nearestExcluding !== undefined
    this.kernelPasses = this.movedSet
      ? ['nearestTwo', 'nearestExcluding']
      : dense?.nearestTwo
        ? ['nearestTwo']
        : []
    this.bounds = {
      labels: new Int32Array(n),
      upper: new Float64Array(n),
      lower: new Float64Array(n),
      ownLow: new Float64Array(n),
    }
  }

  protected async fullPass(current: Float32Array, k: number): Promise<AccelAssignResult> {
    const evaluated = await this.rescan(null, current, k)
    return {
      labels: this.bounds.labels.slice(),
      distancesEvaluated: evaluated,
      centroidDistancesEvaluated: 0,
      changed: this.n,
    }
  }

  /** Sets point i's label and bounds: its own distance in [ownLow, ownHigh], every other centroid ≥ others. */
  private settle(i: number, best: number, ownHigh: number, ownLow: number, others: number): void {
    const { labels, upper, lower, ownLow: low } = this.bounds
    labels[i] = best
    upper[i] = ownHigh * UP
    low[i] = ownLow * DOWN
    lower[i] = others
  }

  /**
   * Exact full scans of the listed points (all when null): through the dense kernel when one is
   * given and the batch is worth a BLAS call (nearest-two when it has it, with full rows for the
   * few points whose two best are too close to call), else exactly in TypeScript. Returns the
   * distances evaluated.
   */
  private async rescan(indices: Int32Array | null, centroids: Float32Array, k: number): Promise<number> {
    const { points, n, d, dense } = this
    const count = indices === null ? n : indices.length
    if (count === 0) return 0
    const useDense = dense !== undefined && denseRescanPays(count, k, d, this.options.denseMinWork)
    const nearestTwoFirst = useDense && dense.nearestTwo !== undefined && k >= 2
    const resolver = new RowResolver(points, d, centroids, k)
    const second = new Float64Array(1)
    // A nearest-two pass over every point records each ‖x‖² as it goes (the kernel returns them).
    const norms = nearestTwoFirst
      ? (this.pointNormsSq ?? (indices === null ? new Float64Array(n) : undefined))
      : undefined
    if (useDense && !nearestTwoFirst) this.pointNormsSq ??= rowNormsSq(points, n, d)
    const evaluated = await rescanPoints(points, n, d, centroids, k, indices, {
      dense: useDense ? dense : undefined,
      nearestTwoFirst,
      settleTwo: (i, best, nearestSq, secondSq, errorBound) => {
        if (resolver.settleNearestTwo(i, best, nearestSq, secondSq, errorBound, true) === UNSETTLED)
          return false
        const { ownHigh, ownLow, others } = resolver.settled
        this.settle(i, best, ownHigh, ownLow, others)
        return true
      },
      visitRow: (i, row, offset, errorBound) => {
        const best = resolver.nearestAndMinima(i, row, offset, errorBound, null, second)
        const own = Math.sqrt(resolver.values[best])
        this.settle(i, best, own, own, Math.sqrt(second[0]))
      },
      normsSq: this.pointNormsSq,
      recordNormsSq: norms,
      allNearestTwo: this.options.allNearestTwo,
    })
    if (nearestTwoFirst) this.pointNormsSq = norms
    return evaluated + resolver.evaluated
  }

  /**
   * Re-scans the listed points (all when null) through centroid neighbourhoods when they share
   * few centroids (at most half as many centroids as points), the rest (and every point then
   * left unsettled) through {@link HamerlyState.rescan}.
   */
  private async largeRescan(
    indices: Int32Array | null,
    centroids: Float32Array,
    k: number,
  ): Promise<RescanCount> {
    const { points, n, d, dense, options } = this
    const { labels } = this.bounds
    const count = indices === null ? n : indices.length
    const neighbours = options.neighbours ?? k >= NEIGHBOUR_RESCAN_MIN_K
    const plain = async (): Promise<RescanCount> => ({
      evaluated: await this.rescan(indices, centroids, k),
      centroidDistancesEvaluated: 0,
    })
    if (!neighbours || !denseRescanPays(count, k, d, options.denseMinWork)) return plain()
    if (2 * distinctLabels(labels, indices, count, k) > count) return plain()
    const done = await neighbourRescan(
      points,
      n,
      d,
      centroids,
      k,
      labels,
      indices,
      dense,
      (i, best, dist, others) => this.settle(i, best, dist, dist, others),
    )
    if (done === null) return plain()
    return {
      evaluated: done.evaluated + (await this.rescan(done.unsettled, centroids, k)),
      centroidDistancesEvaluated: done.centroidDistancesEvaluated,
    }
  }

  /** One iteration after the first: bounds moved by the drifts, tightened, failing points re-scanned. */
  protected async afterMove(
    previous: Float32Array,
    current: Float32Array,
    k: number,
  ): Promise<AccelAssignResult> {
    const { points, n, d, dense, options } = this
    const { labels, upper, lower, ownLow } = this.bounds
    const drift = centroidDrift(previous, current, k, d)
    const before = labels.slice()
    const byDrift = Int32Array.from({ length: k }, (_, j) => j).sort((a, b) => drift[b] - drift[a] || a - b)
    const topJ = byDrift[0]
    const top = drift[topJ] * UP
    const runnerUp = k > 1 ? drift[byDrift[1]] * UP : 0
    // The bound over every other centroid after the drifts: the largest drift of any but the own.
    const allOthers = (i: number): number => lower[i] * DOWN - (labels[i] === topJ ? runnerUp : top)
    let evaluated = 0
    let centroidDistancesEvaluated = 0
    let movedBound: Float64Array | null = null
    let staticDrift = Number.NaN
    let half: Float64Array | null = null
    if (this.movedSet) {
      const plan = planMovedSet(this.bounds, n, k, drift, byDrift, allOthers)
      if (denseRescanPays(n, k, d, options.denseMinWork) && fullPassBeats(plan, n, k)) {
        const all = await this.largeRescan(null, current, k)
        return iterationResult(labels, before, all.evaluated, all.centroidDistancesEvaluated)
      }
      if (plan.m > 0) {
        this.pointNormsSq ??= rowNormsSq(points, n, d)
        const kernel = dense as DistanceMatrixKernel &
          Required<Pick<DistanceMatrixKernel, 'nearestExcluding'>>
        const moved = byDrift.subarray(0, plan.m)
        movedBound = await movedSetBounds(
          points,
          n,
          d,
          labels,
          this.pointNormsSq,
          kernel,
          current,
          k,
          moved,
          allOthers,
        )
        staticDrift = drift[byDrift[plan.m]] * UP
        evaluated += n * plan.m
      }
    } else {
      half = await halfNearestCentroidDistance(current, k, d, dense)
      centroidDistancesEvaluated = k * k
    }
    const pending: number[] = []
    for (let i = 0; i < n; i++) {
      const a = labels[i]
      // The lower bound absorbs the largest drift of any other centroid (past the moved set, if any).
      let l = movedBound === null ? allOthers(i) : Math.min(lower[i] * DOWN - staticDrift, movedBound[i])
      if (l < 0) l = 0
      lower[i] = l
      const z = half === null || half[a] < l ? l : half[a]
      const moved = drift[a] * UP
      const u = upper[i] + moved
      if (u < z) {
        upper[i] = u
        ownLow[i] -= moved
        continue
      }
      if (!(ownLow[i] - moved < z)) {
        pending.push(i)
        continue
      }
      const own = Math.sqrt(rowDistanceSq(points, i, current, a, d))
      evaluated++
      upper[i] = own * UP
      ownLow[i] = own * DOWN
      if (!(own * UP < z)) pending.push(i)
    }
    const rescanned = await this.largeRescan(Int32Array.from(pending), current, k)
    evaluated += rescanned.evaluated
    centroidDistancesEvaluated += rescanned.centroidDistancesEvaluated
    return iterationResult(labels, before, evaluated, centroidDistancesEvaluated)
  }
}

/** How many distinct labels the listed points (all when null) hold. */
function distinctLabels(labels: Int32Array, indices: Int32Array | null, count: number, k: number): number {
  const seen = new Uint8Array(k)
  let distinct = 0
  for (let r = 0; r < count; r++) {
    const a = labels[indices === null ? r : indices[r]]
    if (seen[a] === 0) {
      seen[a] = 1
      distinct++
    }
  }
  return distinct
}

/** A {@link HamerlyState} over the n rows of `points` (see {@link HamerlyOptions}). */
export function createHamerlyState(
  points: Float32Array,
  n: number,
  d: number,
  options: HamerlyOptions = {},
): AccelState {
  return new HamerlyState(points, n, d, options)
}
