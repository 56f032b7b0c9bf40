import { UsageError } from '../../errors.ts'
import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import {
  type AccelAssignResult,
  type AccelOptions,
  type AccelState,
  BOUND_SLACK,
  denseRescanPays,
  iterationResult,
} from './accel-state.ts'
import {
  centroidDrift,
  forEachDistanceRow,
  forEachNearestTwo,
  maxRowNormSq,
  type RowResolution,
  resolveRow,
  rowNormsSq,
} from './dense-pass.ts'
import { neighbourRescan } from './neighbour-rescan.ts'

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

/**
 * The moved-set pass's cost per point, in the distance evaluations of a gathered re-scan (a
 * re-scanned point costs k): a fixed part (reading the point, masking and reducing its row, the
 * bound update) plus a part per moved centroid. Measured inside K-means at n = 100k, d = 128,
 * k = 1,000 (2026-11-24): a re-scan ≈ 2.7 µs per point; the pass ≈ 10 ms + 0.21 ms per moved
 * centroid (m = 369: 88–116 ms, m = 649: 125–140 ms; ~1.3× the same pass back to back in isolation).
 */
const MOVED_PASS_FIXED = 40
const MOVED_PASS_PER_CENTROID = 0.8
/** Tightening one upper bound (an exact distance in TypeScript), in the same units. */
const TIGHTEN = 60
/**
 * A full pass (one contiguous nearest-two sweep, no bound checks or gathers) per point, in the
 * same units per centroid (measured 1.9–2.2 µs per point against 2.7 for a re-scan): chosen when
 * nearly every point is at risk (`FULL_PASS_AT_RISK`) and the moved-set plan costs more.
 */
const FULL_PASS_SHARE = 0.8
const FULL_PASS_AT_RISK = 0.9
/** Points {@link planMovedSet} looks at (every n / PLAN_SAMPLE-th): its fractions are within ~1 % of all points'. */
const PLAN_SAMPLE = 8_192
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
  const movedSet =
    (options.movedSet ?? true) && dense?.nearestTwo !== undefined && dense.nearestExcluding !== undefined
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
   * Sets point i from its nearest two (approximate, each within `errorBound`) squared distances.
   * Every centroid but `best` is at least secondSq − errorBound away, so `best` is the exact
   * nearest when its distance is below that: first tested with its bound bestSq + errorBound (no
   * arithmetic on the point; returns 0), then exactly (returns 1); 2 when they cannot settle it.
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
    const useDense = dense !== undefined && denseRescanPays(count, k, d, options.denseMinWork)
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
   * Re-scans the listed points (all when null) through centroid neighbourhoods when they share
   * few centroids (at most half as many centroids as points), the rest (and every point then
   * left unsettled) through {@link rescan}. Returns point and centroid distances evaluated.
   */
  async function largeRescan(
    indices: Int32Array | null,
    centroids: Float32Array,
    k: number,
  ): Promise<{ evaluated: number; centroidDistancesEvaluated: number }> {
    const count = indices === null ? n : indices.length
    const neighbours = options.neighbours ?? k >= NEIGHBOUR_RESCAN_MIN_K
    if (!neighbours || !denseRescanPays(count, k, d, options.denseMinWork))
      return { evaluated: await rescan(indices, centroids, k), centroidDistancesEvaluated: 0 }
    const seen = new Uint8Array(k)
    let distinct = 0
    for (let r = 0; r < count; r++) {
      const a = labels[indices === null ? r : indices[r]]
      if (seen[a] === 0) {
        seen[a] = 1
        distinct++
      }
    }
    if (2 * distinct > count)
      return { evaluated: await rescan(indices, centroids, k), centroidDistancesEvaluated: 0 }
    const done = await neighbourRescan(
      points,
      n,
      d,
      centroids,
      k,
      labels,
      indices,
      dense,
      (i, best, dist, others) => {
        labels[i] = best
        upper[i] = dist * UP
        ownLow[i] = dist * DOWN
        lower[i] = others
      },
    )
    if (done === null)
      return { evaluated: await rescan(indices, centroids, k), centroidDistancesEvaluated: 0 }
    return {
      evaluated: done.evaluated + (await rescan(done.unsettled, centroids, k)),
      centroidDistancesEvaluated: done.centroidDistancesEvaluated,
    }
  }

  /**
   * Plans the moved set (see {@link HamerlyOptions.movedSet}) from the points at risk (those whose
   * bound fails with the largest drift), estimated on every `stride`-th point: m minimises one
   * moved-set pass over all points plus the re-scans of the points at risk whose slack is below the
   * (m + 1)-th largest drift, and one tightening for each other point at risk; candidates are 0,
   * powers of two below k, and the number of centroids that moved at all. The slack is an
   * estimate (lower bound − expected own distance), not a bound: a centroid drifting by δ in a
   * direction unrelated to the point (the typical case in many dimensions) moves from distance u
   * to about √(u² + δ²). Returns m, the plan's estimated cost in
   * distance evaluations and the estimated number of points at risk. Only the cost depends on the
   * sample, never a label: a sample of ~{@link PLAN_SAMPLE} points costs ~0.1 ms, where looking at
   * every point cost 5–20 ms per iteration at n = 100k.
   */
  function planMovedSet(
    k: number,
    drift: Float64Array,
    byDrift: Int32Array,
    allOthers: (i: number) => number,
  ): { m: number; cost: number; atRisk: number } {
    const candidates: number[] = []
    for (let c = 0; c < k; c = c === 0 ? 2 : c * 2) candidates.push(c)
    // Every centroid that moved at all: the others then cost their bound nothing. Once a few
    // iterations in, most clusters keep their members and their centroids stay put (on blobs at
    // k = 1,000: 649, 369, 211, … of 1,000 move in iterations 4, 5, 6, …).
    let moving = 0
    while (moving < k && drift[byDrift[moving]] > 0) moving++
    if (moving < k && !candidates.includes(moving)) {
      candidates.push(moving)
      candidates.sort((a, b) => a - b)
    }
    // failing[q]: points at risk whose slack is ≤ the drift left after moving candidates[q]
    // (thresholds fall as q grows, so a point counts for every q up to its last).
    const threshold = candidates.map((c) => drift[byDrift[c]] * UP)
    const failing = new Float64Array(candidates.length)
    const stride = Math.max(1, Math.floor(n / PLAN_SAMPLE))
    let sampled = 0
    let atRiskSampled = 0
    for (let i = 0; i < n; i += stride) {
      sampled++
      const own = drift[labels[i]]
      if (upper[i] + own * UP < allOthers(i)) continue
      atRiskSampled++
      const slack = lower[i] - Math.sqrt(upper[i] * upper[i] + own * own)
      let q = 0
      while (q < threshold.length && slack <= threshold[q]) q++
      if (q > 0) failing[q - 1]++
    }
    const scale = sampled === 0 ? 0 : n / sampled
    const atRisk = atRiskSampled * scale
    for (let q = failing.length - 2; q >= 0; q--) failing[q] += failing[q + 1]
    let m = 0
    let cost = Number.POSITIVE_INFINITY
    for (let q = 0; q < candidates.length; q++) {
      const c = candidates[q]
      const fail = failing[q] * scale
      const qCost =
        (c === 0 ? 0 : n * (MOVED_PASS_FIXED + MOVED_PASS_PER_CENTROID * c)) +
        k * fail +
        TIGHTEN * (atRisk - fail)
      if (qCost < cost) {
        cost = qCost
        m = c
      }
    }
    return { m, cost, atRisk }
  }

  /**
   * The moved-set pass: the m most-drifted centroids measured for every point (contiguous rows;
   * gathering the points at risk would cost more than the pass), each point excluding its own.
   * Returns each point's bound on the moved centroids other than its own, which is at least its
   * bound over all other centroids (`allOthers`).
   */
  async function movedSetBounds(
    current: Float32Array,
    k: number,
    moved: Int32Array,
    allOthers: (i: number) => number,
  ): Promise<Float64Array> {
    const m = moved.length
    const movedRows = new Float32Array(m * d)
    // Each point excludes its own centroid where it is one of the moved (m: exclude none).
    const slot = new Int32Array(k).fill(m)
    for (let r = 0; r < m; r++) {
      movedRows.set(current.subarray(moved[r] * d, moved[r] * d + d), r * d)
      slot[moved[r]] = r
    }
    const exclude = new Int32Array(n)
    for (let i = 0; i < n; i++) exclude[i] = slot[labels[i]]
    pointNormsSq ??= rowNormsSq(points, n, d)
    const norms = pointNormsSq
    const kernel = dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestExcluding'>>
    const othersSq = await kernel.nearestExcluding(points.subarray(0, n * d), movedRows, exclude, norms, d)
    const maxMovedNormSq = maxRowNormSq(movedRows, m, d)
    const bound = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const measured = Math.sqrt(
        Math.max(0, othersSq[i] - kernel.distanceErrorBound(norms[i], maxMovedNormSq, d)),
      )
      bound[i] = Math.max(measured, allOthers(i))
    }
    return bound
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
      const plan = planMovedSet(k, drift, byDrift, allOthers)
      if (
        denseRescanPays(n, k, d, options.denseMinWork) &&
        plan.atRisk >= FULL_PASS_AT_RISK * n &&
        plan.cost > FULL_PASS_SHARE * n * k
      ) {
        // Early on nearly every point fails: then one pass over all of them (contiguous, no bound
        // checks, no gather) costs less than checking, gathering and re-scanning almost all.
        const all = await largeRescan(null, current, k)
        return iterationResult(labels, before, all.evaluated, all.centroidDistancesEvaluated)
      }
      if (plan.m > 0) {
        movedBound = await movedSetBounds(current, k, byDrift.subarray(0, plan.m), allOthers)
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
    const rescanned = await largeRescan(Int32Array.from(pending), current, k)
    evaluated += rescanned.evaluated
    centroidDistancesEvaluated += rescanned.centroidDistancesEvaluated
    return iterationResult(labels, before, evaluated, centroidDistancesEvaluated)
  }

  return {
    name: 'hamerly',
    n,
    d,
    kernelPasses: movedSet ? ['nearestTwo', 'nearestExcluding'] : dense?.nearestTwo ? ['nearestTwo'] : [],
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
