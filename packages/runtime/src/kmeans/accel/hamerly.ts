import { UsageError } from '../../errors.ts'
import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { type AccelAssignResult, type AccelOptions, type AccelState, BOUND_SLACK } from './accel-state.ts'
import {
  centroidDrift,
  forEachDistanceRow,
  forEachNearestTwo,
  loosenLowerBound,
  type RowResolution,
  resolveRow,
} from './dense-pass.ts'

/** Below this many re-scans a BLAS call costs more in setup than the TypeScript loop. */
export const MIN_DENSE_RESCAN = 64

/** Checks the shapes shared by every accelerated state. */
export function checkAccelShapes(name: string, points: Float32Array, n: number, d: number): void {
  if (!Number.isInteger(d) || d < 1 || !Number.isInteger(n) || n < 0 || points.length < n * d) {
    throw new UsageError(
      'ACCEL_BAD_SHAPE',
      `${name}: ${points.length} values cannot hold n = ${n} points of d = ${d}`,
    )
  }
}

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

/**
 * Hamerly's exact K-means (2010) for one partition: per point one upper bound (kept tight:
 * the distance to its own centroid is recomputed each iteration, which also yields exact
 * `distancesSq` for the inertia) and one lower bound on the distance to every other centroid.
 * A point is re-scanned only when its distance reaches max(lower bound, s(own centroid));
 * re-scans are batched through the dense kernel when one is given.
 */
/** Options of {@link createHamerlyState}. */
export interface HamerlyOptions extends AccelOptions {
  /**
   * Moved-set iterations (default: on when the dense kernel has `nearestTwo`): each iteration the
   * m centroids that drifted most are re-measured densely for every point (one Gemm over m ≪ k
   * centroids), so the single lower bound only has to absorb the (m + 1)-th largest drift; m is
   * chosen per iteration from the points' bound slack to minimise the dense work. Off: classic
   * Hamerly (the bound absorbs the largest drift, plus the s(c) test).
   */
  movedSet?: boolean
}

/** Relative cost of re-scanning one point (full nearest-two row plus exact checks) next to one dense distance row over all k. */
const RESCAN_COST = 1.3

export function createHamerlyState(
  points: Float32Array,
  n: number,
  d: number,
  options: HamerlyOptions = {},
): AccelState {
  checkAccelShapes('hamerly', points, n, d)
  const { dense } = options
  const movedSet = (options.movedSet ?? true) && dense?.nearestTwo !== undefined
  const labels = new Int32Array(n)
  const distancesSq = new Float32Array(n)
  const lower = new Float64Array(n)
  let previous: Float32Array | null = null
  let previousK = 0

  /** Sets point i exactly from a row of distances within `errorBound` of exact (see {@link resolveRow}). */
  function fromRow(
    i: number,
    row: Float32Array | Float64Array,
    offset: number,
    errorBound: number,
    centroids: Float32Array,
    k: number,
    scratch: RowResolution,
  ): void {
    const best = resolveRow(points, i, centroids, d, k, row, offset, errorBound, scratch)
    let second = Number.POSITIVE_INFINITY
    for (let j = 0; j < k; j++) if (j !== best && scratch.values[j] < second) second = scratch.values[j]
    labels[i] = best
    distancesSq[i] = scratch.values[best]
    lower[i] = Math.sqrt(second)
  }

  /** Sets point i from its nearest two (approximate) distances; false when the label is uncertain. */
  function fromNearestTwo(
    i: number,
    best: number,
    secondSq: number,
    errorBound: number,
    centroids: Float32Array,
  ): boolean {
    const exact = rowDistanceSq(points, i, centroids, best, d)
    // Every centroid but `best` is at least secondSq − errorBound away; if the exact distance to
    // `best` is below that, `best` is the exact nearest (even if the kernel had mis-ranked a near-tie).
    const lowerOthers = Math.sqrt(Math.max(0, secondSq - errorBound))
    if (!(Math.sqrt(exact) < lowerOthers)) return false
    labels[i] = best
    distancesSq[i] = exact
    lower[i] = lowerOthers
    return true
  }

  /**
   * Exact full scans of the listed points (all when null): through the dense kernel when one is
   * given and the batch is worth a BLAS call (nearest-two when it has it, with full rows for the
   * few points whose two best are too close to call), else exactly in TypeScript.
   */
  async function rescan(indices: Int32Array | null, centroids: Float32Array, k: number): Promise<number> {
    const count = indices === null ? n : indices.length
    const useDense = dense !== undefined && count >= MIN_DENSE_RESCAN
    const scratch: RowResolution = { values: new Float64Array(k), evaluated: 0 }
    let evaluated = 0
    if (useDense && dense.nearestTwo !== undefined && k >= 2) {
      const withTwo = dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestTwo'>>
      const uncertain: number[] = []
      evaluated = await forEachNearestTwo(
        points.subarray(0, n * d),
        d,
        centroids,
        k,
        indices,
        withTwo,
        (i, best, _nearestSq, v1, errorBound) => {
          if (!fromNearestTwo(i, best, v1, errorBound, centroids)) uncertain.push(i)
        },
      )
      // One exact evaluation per row checked the dense label.
      evaluated += count
      if (uncertain.length > 0) {
        evaluated += await forEachDistanceRow(
          points,
          n,
          d,
          centroids,
          k,
          Int32Array.from(uncertain),
          dense,
          (i, row, offset, errorBound) => fromRow(i, row, offset, errorBound, centroids, k, scratch),
        )
      }
    } else {
      evaluated = await forEachDistanceRow(
        points,
        n,
        d,
        centroids,
        k,
        indices,
        useDense ? dense : undefined,
        (i, row, offset, errorBound) => fromRow(i, row, offset, errorBound, centroids, k, scratch),
      )
    }
    return evaluated + scratch.evaluated
  }

  /**
   * One moved-set iteration (see {@link HamerlyOptions.movedSet}): exact own distances for every
   * point, m chosen from the sorted slacks (lower bound − own distance), the nearest two of the
   * m most-drifted centroids densely for every point, then the points whose bound still fails
   * are re-scanned in full.
   */
  async function movedSetIteration(
    current: Float32Array,
    k: number,
    drift: Float64Array,
  ): Promise<AccelAssignResult> {
    const before = labels.slice()
    // No distance yet: the own distance is at least last iteration's (float32-stored, so deflated)
    // minus the own centroid's drift. Slack against that is optimistic; it picks m, and points
    // that fail even optimistically are re-scanned without computing their own distance first.
    const ownLow = new Float64Array(n)
    const slack = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      ownLow[i] = Math.sqrt(distancesSq[i]) * (1 - 1e-6) - drift[labels[i]] * (1 + BOUND_SLACK)
      slack[i] = lower[i] * (1 - BOUND_SLACK) - ownLow[i]
    }
    let evaluated = 0
    // Centroids by drift, largest first; candidate m are 0 and powers of two up to k / 4.
    const byDrift = Int32Array.from({ length: k }, (_, j) => j).sort((a, b) => drift[b] - drift[a] || a - b)
    const sortedSlack = slack.slice().sort()
    const failing = (bound: number): number => {
      // Points with slack ≤ bound fail (binary search in the ascending slacks).
      let lo = 0
      let hi = n
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (sortedSlack[mid] <= bound) lo = mid + 1
        else hi = mid
      }
      return lo
    }
    let bestM = 0
    let bestCost = Number.POSITIVE_INFINITY
    for (let m = 0; m <= Math.floor(k / 4); m = m === 0 ? 2 : m * 2) {
      if (m >= k) break
      const staticDrift = drift[byDrift[m]] * (1 + BOUND_SLACK)
      const cost = (m / k) * n + RESCAN_COST * failing(staticDrift)
      if (cost < bestCost) {
        bestCost = cost
        bestM = m
      }
    }
    const m = bestM
    const staticDrift = drift[byDrift[m]] * (1 + BOUND_SLACK)
    const movedBound = new Float64Array(n).fill(Number.POSITIVE_INFINITY)
    if (m >= 2) {
      const moved = byDrift.slice(0, m)
      const movedRows = new Float32Array(m * d)
      for (let r = 0; r < m; r++) movedRows.set(current.subarray(moved[r] * d, moved[r] * d + d), r * d)
      const withTwo = dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestTwo'>>
      evaluated += await forEachNearestTwo(
        points.subarray(0, n * d),
        d,
        movedRows,
        m,
        null,
        withTwo,
        (i, best, nearestSq, secondSq, errorBound) => {
          // Every moved centroid other than the point's own is at least this far.
          const v = moved[best] === labels[i] ? secondSq : nearestSq
          movedBound[i] = Math.sqrt(Math.max(0, v - errorBound))
        },
      )
    }
    const pending: number[] = []
    for (let i = 0; i < n; i++) {
      const bound = Math.min(lower[i] * (1 - BOUND_SLACK) - staticDrift, movedBound[i])
      lower[i] = bound
      if (!(ownLow[i] < bound)) {
        pending.push(i)
        continue
      }
      const own = rowDistanceSq(points, i, current, labels[i], d)
      evaluated++
      distancesSq[i] = own
      if (!(Math.sqrt(own) < bound)) pending.push(i)
    }
    evaluated += await rescan(Int32Array.from(pending), current, k)
    let changed = 0
    for (let i = 0; i < n; i++) if (labels[i] !== before[i]) changed++
    return {
      labels: labels.slice(),
      distancesSq: distancesSq.slice(),
      distancesEvaluated: evaluated,
      centroidDistancesEvaluated: 0,
      changed,
    }
  }

  return {
    name: 'hamerly',
    n,
    d,
    reset() {
      previous = null
    },
    async assign(centroids: Float32Array, k: number): Promise<AccelAssignResult> {
      if (!Number.isInteger(k) || k < 1 || centroids.length < k * d) {
        throw new UsageError(
          'ACCEL_BAD_CENTROIDS',
          `hamerly: ${centroids.length} values cannot hold k = ${k} centroids of d = ${d}`,
        )
      }
      const current = centroids.slice(0, k * d)
      if (previous === null || previousK !== k) {
        const evaluated = await rescan(null, current, k)
        previous = current
        previousK = k
        return {
          labels: labels.slice(),
          distancesSq: distancesSq.slice(),
          distancesEvaluated: evaluated,
          centroidDistancesEvaluated: 0,
          changed: n,
        }
      }
      const drift = centroidDrift(previous, current, k, d)
      if (movedSet) {
        const result = await movedSetIteration(current, k, drift)
        previous = current
        return result
      }
      // The largest and second-largest drift: a point's lower bound covers every centroid but its own.
      let top = 0
      let topJ = -1
      let runnerUp = 0
      for (let j = 0; j < k; j++) {
        if (drift[j] > top) {
          runnerUp = top
          top = drift[j]
          topJ = j
        } else if (drift[j] > runnerUp) {
          runnerUp = drift[j]
        }
      }
      const half = await halfNearestCentroidDistance(current, k, d, dense)
      const before = labels.slice()
      let evaluated = n
      const pending: number[] = []
      for (let i = 0; i < n; i++) {
        const a = labels[i]
        lower[i] = loosenLowerBound(lower[i], a === topJ ? runnerUp : top)
        const own = rowDistanceSq(points, i, current, a, d)
        distancesSq[i] = own
        if (!(Math.sqrt(own) < Math.max(lower[i], half[a]))) pending.push(i)
      }
      evaluated += await rescan(Int32Array.from(pending), current, k)
      previous = current
      let changed = 0
      for (let i = 0; i < n; i++) if (labels[i] !== before[i]) changed++
      return {
        labels: labels.slice(),
        distancesSq: distancesSq.slice(),
        distancesEvaluated: evaluated,
        centroidDistancesEvaluated: k * k,
        changed,
      }
    },
  }
}
