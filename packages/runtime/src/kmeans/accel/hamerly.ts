import { UsageError } from '../../errors.ts'
import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { type AccelAssignResult, type AccelOptions, type AccelState, BOUND_SLACK } from './accel-state.ts'
import {
  centroidDrift,
  forEachDistanceRow,
  forEachNearestTwo,
  type RowResolution,
  resolveRow,
  rowNormsSq,
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

/** Options of {@link createHamerlyState}. */
export interface HamerlyOptions extends AccelOptions {
  /**
   * Moved-set iterations (default: on when the dense kernel has `nearestTwo`): each iteration the
   * m centroids that drifted most are re-measured densely (one Gemm over m ≪ k centroids) for
   * every point whose bound fails with the largest drift, so its lower bound only has to absorb
   * the (m + 1)-th largest; m is chosen per iteration from the points' bound slack to minimise
   * the dense work, and an iteration where nearly every point fails re-scans all in one pass.
   * Off: classic Hamerly (the bound absorbs the largest drift, plus the s(c) test).
   */
  movedSet?: boolean
}

/**
 * The moved-set pass's cost per point, in dense distance evaluations: a fixed part (reading the
 * point, its row's reductions, the bound update) plus a part per moved centroid (small Gemms run
 * far below BLAS speed). A re-scanned point costs about k. Measured at n = 100k, d = 128,
 * k = 1,000: the pass takes 20 ms + 0.6 ms per moved centroid, a re-scan 2.6 µs per point.
 */
const MOVED_PASS_FIXED = 80
/**
 * Above this fraction of points failing their untightened bounds (and half failing even with
 * their own distance at its lower bound), an iteration re-scans all points in one pass.
 */
const FULL_PASS_FRACTION = 0.9
const MOVED_PASS_PER_CENTROID = 2.3
/** Bounds are widened by this factor (upper) or narrowed (lower) against float64 rounding. */
const UP = 1 + BOUND_SLACK
const DOWN = 1 - BOUND_SLACK

/**
 * Hamerly's exact K-means (2010) for one partition. Per point: its label, an upper bound on the
 * distance to its centroid and a lower bound on the distance to every other one; both move by
 * the centroids' drifts each iteration, so a point whose upper bound stays below its lower bound
 * costs O(1). Otherwise the upper bound is tightened with one exact distance, and only if that
 * still fails is the point re-scanned; re-scans are batched through the dense kernel when one is
 * given. No per-point exact distance is kept: the map task derives the inertia from its cluster
 * sums, which is what lets late iterations skip almost all n·d work.
 */
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
  /** upper[i] ≥ the distance from point i to centroid labels[i]. */
  const upper = new Float64Array(n)
  /** lower[i] ≤ the distance from point i to every other centroid. */
  const lower = new Float64Array(n)
  /**
   * ownLow[i] ≤ the distance from point i to centroid labels[i]: when even it fails the bound
   * test, tightening the upper bound with an exact distance cannot save the point, so it is
   * re-scanned directly (early iterations, when most points move).
   */
  const ownLow = new Float64Array(n)
  /** ‖x‖² of every point, for the dense kernel's error bound (kept from the first dense pass). */
  let pointNormsSq: Float64Array | undefined
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
    const own = Math.sqrt(scratch.values[best])
    upper[i] = own * UP
    ownLow[i] = own * DOWN
    lower[i] = Math.sqrt(second)
  }

  /**
   * Sets point i from its nearest two (approximate, each within `errorBound`) squared distances;
   * false when they cannot settle the label. Every centroid but `best` is at least
   * secondSq − errorBound away, so `best` is the exact nearest when its distance is below that:
   * first tested with its bound bestSq + errorBound (no arithmetic on the point), then exactly.
   */
  function fromNearestTwo(
    i: number,
    best: number,
    bestSq: number,
    secondSq: number,
    errorBound: number,
    centroids: Float32Array,
  ): 0 | 1 | 2 {
    const othersSq = secondSq - errorBound
    if (bestSq + errorBound < othersSq) {
      labels[i] = best
      upper[i] = Math.sqrt(bestSq + errorBound) * UP
      ownLow[i] = Math.sqrt(Math.max(0, bestSq - errorBound)) * DOWN
      lower[i] = Math.sqrt(othersSq)
      return 0
    }
    const exact = Math.sqrt(rowDistanceSq(points, i, centroids, best, d))
    const others = Math.sqrt(Math.max(0, othersSq))
    if (!(exact < others)) return 2
    labels[i] = best
    upper[i] = exact * UP
    ownLow[i] = exact * DOWN
    lower[i] = others
    return 1
  }

  /**
   * Exact full scans of the listed points (all when null): through the dense kernel when one is
   * given and the batch is worth a BLAS call (nearest-two when it has it, with full rows for the
   * few points whose two best are too close to call), else exactly in TypeScript. Returns the
   * distances evaluated.
   */
  async function rescan(indices: Int32Array | null, centroids: Float32Array, k: number): Promise<number> {
    const count = indices === null ? n : indices.length
    if (count === 0) return 0
    const useDense = dense !== undefined && count >= MIN_DENSE_RESCAN
    const scratch: RowResolution = { values: new Float64Array(k), evaluated: 0 }
    let evaluated = 0
    if (useDense && dense.nearestTwo !== undefined && k >= 2) {
      const withTwo = dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestTwo'>>
      const uncertain: number[] = []
      // A pass over every point records each ‖x‖² as it goes (the kernel returns them).
      const norms = pointNormsSq ?? (indices === null ? new Float64Array(n) : undefined)
      let exactChecks = 0
      evaluated = await forEachNearestTwo(
        points.subarray(0, n * d),
        d,
        centroids,
        k,
        indices,
        withTwo,
        (i, best, nearestSq, secondSq, errorBound, normSq) => {
          if (norms !== undefined) norms[i] = normSq
          const settled = fromNearestTwo(i, best, nearestSq, secondSq, errorBound, centroids)
          if (settled > 0) exactChecks++
          if (settled === 2) uncertain.push(i)
        },
        pointNormsSq,
      )
      evaluated += exactChecks
      pointNormsSq = norms
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
          pointNormsSq,
        )
      }
    } else {
      if (useDense) pointNormsSq ??= rowNormsSq(points, n, d)
      evaluated = await forEachDistanceRow(
        points,
        n,
        d,
        centroids,
        k,
        indices,
        useDense ? dense : undefined,
        (i, row, offset, errorBound) => fromRow(i, row, offset, errorBound, centroids, k, scratch),
        pointNormsSq,
      )
    }
    return evaluated + scratch.evaluated
  }

  /**
   * The moved set (see {@link HamerlyOptions.movedSet}) among the points `atRisk` (those whose
   * bound fails with the largest drift; the others need no moved set): m minimises the dense
   * pass over them plus the re-scans of the points whose slack (lower bound − lower bound on the
   * own distance, after the drifts: optimistic, as tightening the upper bound saves most points
   * whose loose bounds fail) is below the (m + 1)-th largest drift; candidates are 0 and powers
   * of two up to k / 4. Then the nearest two of the m most-drifted centroids densely for the
   * points at risk. Returns m, each point's bound on the moved centroids other than its own
   * (null when m = 0), the drift every other centroid stays within, and the distances evaluated.
   */
  async function chooseMovedSet(
    current: Float32Array,
    k: number,
    drift: Float64Array,
    byDrift: Int32Array,
    atRisk: Int32Array,
    allOthers: (i: number) => number,
  ): Promise<{ m: number; movedBound: Float64Array | null; staticDrift: number; evaluated: number }> {
    const slack = new Float64Array(atRisk.length)
    for (let r = 0; r < atRisk.length; r++) {
      const i = atRisk[r]
      slack[r] = lower[i] * DOWN - (ownLow[i] - drift[labels[i]] * UP)
    }
    slack.sort()
    const failing = (bound: number): number => {
      // Points with slack ≤ bound fail (binary search in the ascending slacks).
      let lo = 0
      let hi = slack.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (slack[mid] <= bound) lo = mid + 1
        else hi = mid
      }
      return lo
    }
    let m = 0
    let bestCost = Number.POSITIVE_INFINITY
    for (let c = 0; c <= Math.floor(k / 4) && c < k; c = c === 0 ? 2 : c * 2) {
      const cost =
        (c === 0 ? 0 : atRisk.length * (MOVED_PASS_FIXED + MOVED_PASS_PER_CENTROID * c)) +
        k * failing(drift[byDrift[c]] * UP)
      if (cost < bestCost) {
        bestCost = cost
        m = c
      }
    }
    if (m < 2) return { m: 0, movedBound: null, staticDrift: Number.NaN, evaluated: 0 }
    // Every point's bound over all other centroids also bounds the moved ones; the points at risk get a measured one too.
    const movedBound = new Float64Array(n)
    for (let i = 0; i < n; i++) movedBound[i] = allOthers(i)
    const moved = byDrift.subarray(0, m)
    const movedRows = new Float32Array(m * d)
    for (let r = 0; r < m; r++) movedRows.set(current.subarray(moved[r] * d, moved[r] * d + d), r * d)
    const withTwo = dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestTwo'>>
    const evaluated = await forEachNearestTwo(
      points.subarray(0, n * d),
      d,
      movedRows,
      m,
      atRisk.length === n ? null : atRisk,
      withTwo,
      (i, best, nearestSq, secondSq, errorBound) => {
        // Every moved centroid other than the point's own is at least this far.
        const v = moved[best] === labels[i] ? secondSq : nearestSq
        const measured = Math.sqrt(Math.max(0, v - errorBound))
        if (measured > movedBound[i]) movedBound[i] = measured
      },
      pointNormsSq,
    )
    return { m, movedBound, staticDrift: drift[byDrift[m]] * UP, evaluated }
  }

  /** One iteration after the first: bounds moved by the drifts, tightened, failing points re-scanned. */
  async function boundedIteration(current: Float32Array, k: number): Promise<AccelAssignResult> {
    const drift = centroidDrift(previous as Float32Array, current, k, d)
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
    if (movedSet) {
      const atRisk: number[] = []
      // Points that fail even against the lower bound on their own distance: sure to be re-scanned
      // unless the moved set rescues them.
      let sure = 0
      for (let i = 0; i < n; i++) {
        const others = allOthers(i)
        const own = drift[labels[i]] * UP
        if (!(upper[i] + own < others)) atRisk.push(i)
        if (!(ownLow[i] - own < others)) sure++
      }
      if (n >= MIN_DENSE_RESCAN && atRisk.length >= FULL_PASS_FRACTION * n && 2 * sure >= n) {
        // Early on nearly every point fails: then one pass over all of them (contiguous, no bound
        // checks, no gather) costs less than checking, gathering and re-scanning almost all.
        evaluated = await rescan(null, current, k)
        let changed = 0
        for (let i = 0; i < n; i++) if (labels[i] !== before[i]) changed++
        return {
          labels: labels.slice(),
          distancesEvaluated: evaluated,
          centroidDistancesEvaluated: 0,
          changed,
        }
      }
      const chosen = await chooseMovedSet(current, k, drift, byDrift, Int32Array.from(atRisk), allOthers)
      evaluated += chosen.evaluated
      movedBound = chosen.movedBound
      staticDrift = chosen.staticDrift
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
    evaluated += await rescan(Int32Array.from(pending), current, k)
    let changed = 0
    for (let i = 0; i < n; i++) if (labels[i] !== before[i]) changed++
    return { labels: labels.slice(), distancesEvaluated: evaluated, centroidDistancesEvaluated, changed }
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
      let result: AccelAssignResult
      if (previous === null || previousK !== k) {
        const evaluated = await rescan(null, current, k)
        result = {
          labels: labels.slice(),
          distancesEvaluated: evaluated,
          centroidDistancesEvaluated: 0,
          changed: n,
        }
      } else {
        result = await boundedIteration(current, k)
      }
      previous = current
      previousK = k
      return result
    },
  }
}
