import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { type AllNearestTwo, BOUND_SLACK } from './accel-state.ts'
import type { CentroidGroups } from './centroid-groups.ts'
import { type DistanceRowVisitor, forEachDistanceRow, forEachNearestTwo } from './dense-pass.ts'

/**
 * The row-resolution core the bounded strategies share: how a point is settled exactly from a
 * dense row or from its approximate nearest two, how a batch of failing points is re-scanned,
 * and Yinyang's group-by-group scan. Each settles a point to the exact nearest centroid (ties to
 * the lowest index) and leaves valid bounds on every other one; the strategies only differ in
 * which bounds they keep.
 */

/** A point settled by {@link RowResolver.settleNearestTwo}: bounds on its own distance and on every other centroid's. */
export interface NearestTwoSettlement {
  /** Upper and lower bound on the distance to the nearest (both the exact distance when measured). */
  ownHigh: number
  ownLow: number
  /** The exact squared distance to the nearest, when measured (NaN when the bound alone settled it). */
  exactSq: number
  /** A lower bound on the distance to every other centroid. */
  others: number
}

/** {@link RowResolver.settleNearestTwo}'s verdicts. */
export const SETTLED_BY_BOUND = 0
export const SETTLED_EXACTLY = 1
export const UNSETTLED = 2

/**
 * Settles points of one partition exactly against one iteration's centroids, from what a dense
 * kernel returned for them (rows of distances, or the nearest two), each within an error bound
 * of the exact {@link rowDistanceSq}. One per re-scan; it counts the exact distances it evaluates.
 */
export class RowResolver {
  /**
   * After {@link RowResolver.nearest}: per centroid the exact squared distance where it was
   * evaluated, a lower bound (value − bound, ≥ 0) elsewhere.
   */
  readonly values: Float64Array
  /** After a settled {@link RowResolver.settleNearestTwo}: the point's bounds. */
  readonly settled: NearestTwoSettlement = { ownHigh: 0, ownLow: 0, exactSq: 0, others: 0 }
  /** Exact distances evaluated so far. */
  evaluated = 0

  constructor(
    private readonly points: Float32Array,
    private readonly d: number,
    private readonly centroids: Float32Array,
    private readonly k: number,
  ) {
    this.values = new Float64Array(k)
  }

  /**
   * Point i's exact nearest centroid (ties to the lowest index) from its row of squared distances.
   * Only the centroids that could still be nearest — row value − bound ≤ (row minimum + bound) —
   * are evaluated exactly, usually one or two; every other one is provably, strictly farther.
   */
  nearest(i: number, row: Float32Array | Float64Array, offset: number, errorBound: number): number {
    const { points, d, centroids, k, values } = this
    let best = 0
    let rowMin = row[offset]
    for (let j = 1; j < k; j++) {
      if (row[offset + j] < rowMin) {
        rowMin = row[offset + j]
        best = j
      }
    }
    if (errorBound === 0) {
      for (let j = 0; j < k; j++) values[j] = row[offset + j]
      return best
    }
    const cutoff = rowMin + 2 * errorBound
    let bestSq = Number.POSITIVE_INFINITY
    for (let j = 0; j < k; j++) {
      const v = row[offset + j]
      if (v <= cutoff) {
        const exact = rowDistanceSq(points, i, centroids, j, d)
        this.evaluated++
        values[j] = exact
        // Ascending j with a strict < keeps the lowest index on exact ties.
        if (exact < bestSq) {
          bestSq = exact
          best = j
        }
      } else {
        values[j] = Math.max(0, v - errorBound)
      }
    }
    return best
  }

  /**
   * {@link RowResolver.nearest}, then per group the smallest value (exact or lower bound,
   * squared) over every centroid but the nearest, into `minima` (t entries; `groupOf` null: one
   * group, so minima[0] is the second-nearest). Returns the nearest centroid.
   */
  nearestAndMinima(
    i: number,
    row: Float32Array | Float64Array,
    offset: number,
    errorBound: number,
    groupOf: Int32Array | null,
    minima: Float64Array,
  ): number {
    const best = this.nearest(i, row, offset, errorBound)
    const { k, values } = this
    if (groupOf === null) {
      let second = Number.POSITIVE_INFINITY
      for (let j = 0; j < k; j++) if (j !== best && values[j] < second) second = values[j]
      minima[0] = second
      return best
    }
    minima.fill(Number.POSITIVE_INFINITY)
    for (let j = 0; j < k; j++) {
      const gj = groupOf[j]
      if (j !== best && values[j] < minima[gj]) minima[gj] = values[j]
    }
    return best
  }

  /**
   * Settles point i from its approximate nearest two squared distances (each within
   * `errorBound`). Every centroid but `best` is at least secondSq − errorBound away, so `best` is
   * the exact nearest when its distance is below that: with `boundFirst`, first tested with its
   * bound bestSq + errorBound (no arithmetic on the point: {@link SETTLED_BY_BOUND}), then with
   * its exact distance ({@link SETTLED_EXACTLY}); {@link UNSETTLED} when they cannot settle it
   * (the caller fetches a full row). Fills {@link RowResolver.settled} when settled.
   */
  settleNearestTwo(
    i: number,
    best: number,
    bestSq: number,
    secondSq: number,
    errorBound: number,
    boundFirst: boolean,
  ): 0 | 1 | 2 {
    const out = this.settled
    const othersSq = secondSq - errorBound
    if (boundFirst && bestSq + errorBound < othersSq) {
      out.ownHigh = Math.sqrt(bestSq + errorBound)
      out.ownLow = Math.sqrt(Math.max(0, bestSq - errorBound))
      out.exactSq = Number.NaN
      out.others = Math.sqrt(othersSq)
      return SETTLED_BY_BOUND
    }
    const exactSq = rowDistanceSq(this.points, i, this.centroids, best, this.d)
    this.evaluated++
    const exact = Math.sqrt(exactSq)
    const others = Math.sqrt(Math.max(0, othersSq))
    if (!(exact < others)) return UNSETTLED
    out.ownHigh = exact
    out.ownLow = exact
    out.exactSq = exactSq
    out.others = others
    return SETTLED_EXACTLY
  }
}

/** A point's nearest two from the kernel (see {@link RowResolver.settleNearestTwo}); returns whether it was settled. */
export type NearestTwoSettler = (
  i: number,
  best: number,
  nearestSq: number,
  secondSq: number,
  errorBound: number,
) => boolean

/** How {@link rescanPoints} measures a batch and where the results go. */
export interface RescanPlan {
  /** The kernel (TypeScript rows without one). */
  dense: DistanceMatrixKernel | undefined
  /** The nearest two first (the kernel has `nearestTwo`, k ≥ 2), full rows only for what they leave. */
  nearestTwoFirst: boolean
  settleTwo: NearestTwoSettler
  visitRow: DistanceRowVisitor
  /** ‖x‖² by index, handed to the kernel passes. */
  normsSq?: Float64Array | undefined
  /** Receives each ‖x‖² the nearest-two pass returns; the rows pass then uses it. */
  recordNormsSq?: Float64Array | undefined
  /** With every point listed, their nearest two from here instead of `dense.nearestTwo` ({@link AllNearestTwo}). */
  allNearestTwo?: AllNearestTwo | undefined
}

/**
 * The dense re-scan of a batch of a partition's points (all n when `indices` is null), shared by
 * Hamerly and Yinyang: with `nearestTwoFirst`, the kernel's nearest two of every listed point go
 * to `settleTwo`, and full rows only to the points it could not settle; else full rows for all.
 * Returns the distances the kernel passes evaluated (k per point and row); the exact ones are
 * counted by the {@link RowResolver} the visitors use.
 */
export async function rescanPoints(
  points: Float32Array,
  n: number,
  d: number,
  centroids: Float32Array,
  k: number,
  indices: Int32Array | null,
  plan: RescanPlan,
): Promise<number> {
  const { dense, normsSq, recordNormsSq, visitRow } = plan
  if (!plan.nearestTwoFirst || dense?.nearestTwo === undefined) {
    return forEachDistanceRow(points, n, d, centroids, k, indices, dense, visitRow, normsSq)
  }
  const withTwo = dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestTwo'>>
  const uncertain: number[] = []
  let evaluated = await forEachNearestTwo(
    points.subarray(0, n * d),
    d,
    centroids,
    k,
    indices,
    withTwo,
    (i, best, nearestSq, secondSq, errorBound, normSq) => {
      if (recordNormsSq !== undefined) recordNormsSq[i] = normSq
      if (!plan.settleTwo(i, best, nearestSq, secondSq, errorBound)) uncertain.push(i)
    },
    normsSq,
    plan.allNearestTwo,
  )
  if (uncertain.length > 0) {
    const rows = Int32Array.from(uncertain)
    evaluated += await forEachDistanceRow(
      points,
      n,
      d,
      centroids,
      k,
      rows,
      dense,
      visitRow,
      recordNormsSq ?? normsSq,
    )
  }
  return evaluated
}

/**
 * Yinyang's group and local filters for one point, in TypeScript: a group is opened when its
 * bound (already in `lower`) is at most the best distance so far; inside it, member j is skipped
 * when the group's old bound, shrunk by `shrink` and lowered by j's drift (`now[j] − then[j]`),
 * already exceeds the best distance; the rest are measured exactly. Afterwards every opened
 * group's bound covers its members but the new nearest, and the old centroid, if displaced,
 * counts among its group's others. One per iteration; its arrays are scratch of t entries.
 */
export class GroupScan {
  private readonly opened: Int32Array
  private readonly min1: Float64Array
  private readonly min1Idx: Int32Array
  private readonly min2: Float64Array
  /** The last scan's exact squared distance to the nearest, and the distances it evaluated. */
  bestSq = 0
  evaluated = 0

  constructor(
    private readonly points: Float32Array,
    private readonly d: number,
    private readonly groups: CentroidGroups,
    /** The n × t group lower bounds (distances, not squared). */
    private readonly lower: Float64Array,
  ) {
    const { t } = groups
    this.opened = new Int32Array(t)
    this.min1 = new Float64Array(t)
    this.min1Idx = new Int32Array(t)
    this.min2 = new Float64Array(t)
  }

  /**
   * Point i, labelled `a` at distance `own` (squared `ownSq`); `oldBound` holds its group bounds
   * before they were loosened. Returns its nearest centroid (ties to the lowest index).
   */
  scan(
    i: number,
    centroids: Float32Array,
    a: number,
    own: number,
    ownSq: number,
    oldBound: Float64Array,
    shrink: number,
    now: Float64Array,
    then: Float64Array,
  ): number {
    const { points, d, lower, opened, min1, min1Idx, min2 } = this
    const { t, groupOf, start, members } = this.groups
    const base = i * t
    let best = a
    let bestSq = ownSq
    let bestDist = own
    let evaluated = 0
    let ownGroupOpened = false
    let openedCount = 0
    for (let q = 0; q < t; q++) {
      if (!(lower[base + q] <= bestDist)) continue
      if (q === groupOf[a]) ownGroupOpened = true
      // The two smallest values (exact distances or still-valid lower bounds) in the group, and who holds the smallest.
      let m1 = Number.POSITIVE_INFINITY
      let m1j = -1
      let m2 = Number.POSITIVE_INFINITY
      for (let p = start[q]; p < start[q + 1]; p++) {
        const j = members[p]
        let value: number
        if (j === a) value = own
        else {
          const bound = oldBound[q] * shrink - (now[j] - then[j]) * (1 + BOUND_SLACK)
          if (bound > bestDist) value = bound
          else {
            const dj = rowDistanceSq(points, i, centroids, j, d)
            evaluated++
            value = Math.sqrt(dj)
            if (dj < bestSq || (dj === bestSq && j < best)) {
              best = j
              bestSq = dj
              bestDist = value
            }
          }
        }
        if (value < m1) {
          m2 = m1
          m1 = value
          m1j = j
        } else if (value < m2) m2 = value
      }
      opened[openedCount] = q
      min1[openedCount] = m1
      min1Idx[openedCount] = m1j
      min2[openedCount] = m2
      openedCount++
    }
    // Only now is the best final: each opened group's bound covers every member but that centroid.
    for (let o = 0; o < openedCount; o++) lower[base + opened[o]] = min1Idx[o] === best ? min2[o] : min1[o]
    if (best !== a) {
      // The old centroid is now one of the "others" of its group (an opened group already counted it).
      const ga = groupOf[a]
      if (!ownGroupOpened && own < lower[base + ga]) lower[base + ga] = own
    }
    this.bestSq = bestSq
    this.evaluated = evaluated
    return best
  }
}
