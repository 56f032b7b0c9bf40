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
import { type CentroidGroups, groupCentroids } from './centroid-groups.ts'
import {
  centroidDrift,
  forEachDistanceRow,
  forEachNearestTwo,
  loosenLowerBound,
  type RowResolution,
  resolveRow,
  rowNormsSq,
} from './dense-pass.ts'
import {
  addPair,
  beginPoint,
  createCandidatePairs,
  fullRowPass,
  type GroupedBoundsState,
  groupedPass,
  permuteCentroids,
} from './grouped-pass.ts'
import { checkAccelShapes } from './hamerly.ts'

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
 */
export function createYinyangState(
  points: Float32Array,
  n: number,
  d: number,
  options: YinyangOptions = {},
): AccelState {
  checkAccelShapes('yinyang', points, n, d)
  const { dense } = options
  const labels = new Int32Array(n)
  const distancesSq = new Float32Array(n)
  let lower = new Float64Array(0)
  let ownSq = new Float64Array(0)
  let pointNormSq: Float64Array = new Float64Array(0)
  let groups: CentroidGroups | null = null
  // Grouped dense re-scans (the default with a dense kernel): see grouped-pass.ts.
  const grouped = dense !== undefined && (options.rescan ?? 'grouped') === 'grouped'
  const fullRowFraction = options.fullRowFraction ?? 0.15
  const localMax = options.localMax ?? 8
  // Lazy loosening (grouped mode): per point the iteration its bounds were last brought up to
  // date and their minimum then; per iteration the cumulative drift of every group and of the largest.
  let stamp = new Int32Array(0)
  let glb = new Float64Array(0)
  let cumulativeDrift: Float64Array[] = []
  let cumulativeMax: number[] = []
  let cumulativeCentroid: Float64Array[] = []
  let localScratch = {
    opened: new Int32Array(0),
    min1: new Float64Array(0),
    min1Idx: new Int32Array(0),
    min2: new Float64Array(0),
  }
  const boundsState = (): GroupedBoundsState => ({
    points,
    n,
    d,
    labels,
    distancesSq,
    ownSq,
    pointNormSq,
    lower,
    groups: groups as CentroidGroups,
  })
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
    groupMin: Float64Array,
  ): void {
    const g = groups as CentroidGroups
    const best = resolveRow(points, i, centroids, d, k, row, offset, errorBound, scratch)
    const { values } = scratch
    groupMin.fill(Number.POSITIVE_INFINITY)
    for (let j = 0; j < k; j++) {
      const gj = g.groupOf[j]
      if (j !== best && values[j] < groupMin[gj]) groupMin[gj] = values[j]
    }
    const base = i * g.t
    for (let q = 0; q < g.t; q++) lower[base + q] = Math.sqrt(groupMin[q])
    labels[i] = best
    distancesSq[i] = values[best]
  }

  /**
   * Dense pass over the listed points (all when null) fetching only the nearest two; points whose
   * two best are too close to call at the kernel's precision get full rows.
   */
  async function rescanNearestTwo(
    indices: Int32Array | null,
    centroids: Float32Array,
    k: number,
  ): Promise<number> {
    const withTwo = dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestTwo'>>
    const t = (groups as CentroidGroups).t
    const uncertain: number[] = []
    let evaluated = await forEachNearestTwo(
      points.subarray(0, n * d),
      d,
      centroids,
      k,
      indices,
      withTwo,
      (i, best, _v0, v1, errorBound) => {
        const exact = rowDistanceSq(points, i, centroids, best, d)
        // Every centroid but `best` is at least v1 − errorBound away (see Hamerly's fromNearestTwo).
        const others = Math.sqrt(Math.max(0, v1 - errorBound))
        if (!(Math.sqrt(exact) < others)) {
          uncertain.push(i)
          return
        }
        labels[i] = best
        distancesSq[i] = exact
        lower.fill(others, i * t, i * t + t)
      },
    )
    evaluated += indices === null ? n : indices.length
    if (uncertain.length > 0) evaluated += await rescanRows(Int32Array.from(uncertain), centroids, k)
    return evaluated
  }

  /** Dense pass with the cheaper fetch when the kernel allows it. */
  async function densePass(indices: Int32Array | null, centroids: Float32Array, k: number): Promise<number> {
    const twoOk =
      dense?.nearestTwo !== undefined && k >= 2 && (options.denseFetch ?? 'nearest-two') === 'nearest-two'
    return twoOk ? rescanNearestTwo(indices, centroids, k) : rescanRows(indices, centroids, k)
  }

  /** Exact full rows for the listed points (all when null), dense when a kernel is given; bounds rebuilt from scratch. */
  async function rescanRows(indices: Int32Array | null, centroids: Float32Array, k: number): Promise<number> {
    const scratch: RowResolution = { values: new Float64Array(k), evaluated: 0 }
    const groupMin = new Float64Array((groups as CentroidGroups).t)
    const evaluated = await forEachDistanceRow(
      points,
      n,
      d,
      centroids,
      k,
      indices,
      dense,
      (i, row, offset, errorBound) => fromRow(i, row, offset, errorBound, centroids, k, scratch, groupMin),
    )
    return evaluated + scratch.evaluated
  }

  /**
   * Group filter + local filter for point i, whose exact distance to its own centroid is in
   * distancesSq[i] and whose bounds are still those of the previous iteration. Returns the
   * number of distances evaluated.
   */
  function filteredScan(
    i: number,
    current: Float32Array,
    drift: Float64Array,
    groupDrift: Float64Array,
    scratch: {
      oldBound: Float64Array
      min1: Float64Array
      min1Idx: Int32Array
      min2: Float64Array
      opened: Uint8Array
    },
  ): number {
    const { t, groupOf, start, members } = groups as CentroidGroups
    const { oldBound, min1, min1Idx, min2, opened } = scratch
    const a = labels[i]
    const base = i * t
    const ownSq = distancesSq[i]
    const own = Math.sqrt(ownSq)
    let evaluated = 0
    for (let q = 0; q < t; q++) {
      oldBound[q] = lower[base + q]
      lower[base + q] = loosenLowerBound(oldBound[q], groupDrift[q])
    }
    let best = a
    let bestSq = ownSq
    let bestDist = own
    for (let q = 0; q < t; q++) {
      opened[q] = 0
      if (!(lower[base + q] <= bestDist)) continue
      opened[q] = 1
      // The two smallest values (exact distances or still-valid lower bounds) in the group, and who holds the smallest.
      let m1 = Number.POSITIVE_INFINITY
      let m1j = -1
      let m2 = Number.POSITIVE_INFINITY
      for (let p = start[q]; p < start[q + 1]; p++) {
        const j = members[p]
        let value: number
        if (j === a) {
          value = own
        } else {
          const bound = loosenLowerBound(oldBound[q], drift[j])
          if (bound > bestDist) {
            value = bound
          } else {
            const dj = rowDistanceSq(points, i, current, j, d)
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
        } else if (value < m2) {
          m2 = value
        }
      }
      min1[q] = m1
      min1Idx[q] = m1j
      min2[q] = m2
    }
    for (let q = 0; q < t; q++) {
      // The group bound covers every member except the point's (new) centroid.
      if (opened[q] === 1) lower[base + q] = min1Idx[q] === best ? min2[q] : min1[q]
    }
    if (best !== a) {
      const ga = groupOf[a]
      // The old centroid is now one of the "others" of its group.
      if (opened[ga] === 0 && own < lower[base + ga]) lower[base + ga] = own
      labels[i] = best
      distancesSq[i] = bestSq
    }
    return evaluated
  }

  /**
   * One iteration with grouped dense re-scans: the global filter on the exact own distance,
   * then, for failing points, the group filter picks candidate groups; points with many go to
   * full dense rows, the others to per-group dense blocks ({@link groupedPass}).
   */
  async function groupedIteration(
    current: Float32Array,
    k: number,
    drift: Float64Array,
    groupDrift: Float64Array,
  ): Promise<number> {
    const g = groups as CentroidGroups
    const { t, start } = g
    // Lazy loosening: a point's bounds are brought up to date only when its cheap global bound
    // (min over groups at its stamp, loosened by the cumulative largest group drift) fails.
    const previousCumulative = cumulativeDrift[cumulativeDrift.length - 1] as Float64Array
    const now = new Float64Array(t)
    let maxDrift = 0
    for (let q = 0; q < t; q++) {
      now[q] = previousCumulative[q] + groupDrift[q]
      if (groupDrift[q] > maxDrift) maxDrift = groupDrift[q]
    }
    cumulativeDrift.push(now)
    const centroidNow = new Float64Array(k)
    const centroidThen = cumulativeCentroid[cumulativeCentroid.length - 1] as Float64Array
    for (let j = 0; j < k; j++) centroidNow[j] = centroidThen[j] + drift[j]
    cumulativeCentroid.push(centroidNow)
    cumulativeMax.push((cumulativeMax[cumulativeMax.length - 1] as number) + maxDrift)
    const it = cumulativeDrift.length - 1
    const maxNow = cumulativeMax[it] as number
    const pairs = createCandidatePairs(1024, 4096)
    const full: number[] = []
    const fullAt = fullRowFraction * k
    let evaluated = n
    const oldBound = new Float64Array(t)
    localScratch = {
      opened: new Int32Array(t),
      min1: new Float64Array(t),
      min1Idx: new Int32Array(t),
      min2: new Float64Array(t),
    }
    for (let i = 0; i < n; i++) {
      const exact = rowDistanceSq(points, i, current, labels[i], d)
      ownSq[i] = exact
      distancesSq[i] = exact
      const own = Math.sqrt(exact)
      const since = stamp[i]
      const shrink = 1 - (it - since) * BOUND_SLACK
      if (own < glb[i] * shrink - (maxNow - (cumulativeMax[since] as number)) * (1 + BOUND_SLACK)) continue
      const then = cumulativeDrift[since] as Float64Array
      const base = i * t
      let globalLower = Number.POSITIVE_INFINITY
      let candidates = 0
      for (let q = 0; q < t; q++) {
        oldBound[q] = lower[base + q]
        const b = oldBound[q] * shrink - (now[q] - then[q]) * (1 + BOUND_SLACK)
        lower[base + q] = b
        if (b < globalLower) globalLower = b
        if (b <= own) candidates += start[q + 1] - start[q]
      }
      stamp[i] = it
      glb[i] = globalLower
      if (own < globalLower) continue
      if (candidates >= fullAt) {
        full.push(i)
        continue
      }
      // Members that survive the local filter against the current distance: few → exact TypeScript
      // distances; more → one dense block per candidate group (BLAS speed, no local filter).
      const centroidThen = cumulativeCentroid[since] as Float64Array
      let survivors = 0
      const { members } = g
      for (let q = 0; q < t && survivors <= localMax; q++) {
        if (!(lower[base + q] <= own)) continue
        for (let p = start[q]; p < start[q + 1]; p++) {
          const j = members[p]
          if (
            j !== labels[i] &&
            oldBound[q] * shrink - (centroidNow[j] - centroidThen[j]) * (1 + BOUND_SLACK) <= own
          )
            survivors++
        }
      }
      if (survivors <= localMax) {
        evaluated += localScan(i, current, own, oldBound, shrink, centroidNow, centroidThen)
        continue
      }
      beginPoint(pairs, i)
      for (let q = 0; q < t; q++) if (lower[base + q] <= own) addPair(pairs, q)
    }
    const permuted = permuteCentroids(current, g, d)
    const kernel = dense as DistanceMatrixKernel
    const fullList = Int32Array.from(full)
    if (full.length > 0)
      evaluated += await fullRowPass(boundsState(), fullList, current, permuted, k, kernel, true)
    evaluated += await groupedPass(boundsState(), pairs, current, permuted, kernel)
    refreshGlobalBounds(fullList, t)
    refreshGlobalBounds(pairs.points.subarray(0, pairs.pointCount), t)
    return evaluated
  }

  /**
   * Yinyang's group + local filters for point i in TypeScript, with lazily loosened bounds:
   * `lower[i]` holds the bounds brought up to date, `oldBound` their values when last set (at the
   * point's previous stamp, `since`); a member j of an opened group is skipped when oldBound
   * minus j's own drift since then already exceeds the best distance. Few points reach here with
   * more than a couple of candidate groups (those get dense rows), so the exact distances
   * evaluated are few. Rebuilds the opened groups' bounds; returns distances evaluated.
   */
  function localScan(
    i: number,
    current: Float32Array,
    own: number,
    oldBound: Float64Array,
    shrink: number,
    centroidNow: Float64Array,
    centroidThen: Float64Array,
  ): number {
    const { t, groupOf, start, members } = groups as CentroidGroups
    const a = labels[i]
    const base = i * t
    let best = a
    let bestSq = ownSq[i]
    let bestDist = own
    let evaluated = 0
    let ownGroupOpened = false
    let openedCount = 0
    const { opened, min1, min1Idx, min2 } = localScratch
    for (let q = 0; q < t; q++) {
      if (!(lower[base + q] <= bestDist)) continue
      if (q === groupOf[a]) ownGroupOpened = true
      let m1 = Number.POSITIVE_INFINITY
      let m1j = -1
      let m2 = Number.POSITIVE_INFINITY
      for (let p = start[q]; p < start[q + 1]; p++) {
        const j = members[p]
        let value: number
        if (j === a) value = own
        else {
          const bound = oldBound[q] * shrink - (centroidNow[j] - centroidThen[j]) * (1 + BOUND_SLACK)
          if (bound > bestDist) value = bound
          else {
            const dj = rowDistanceSq(points, i, current, j, d)
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
      const ga = groupOf[a]
      if (!ownGroupOpened && own < lower[base + ga]) lower[base + ga] = own
      labels[i] = best
      ownSq[i] = bestSq
      distancesSq[i] = bestSq
    }
    let m = Number.POSITIVE_INFINITY
    for (let q = base; q < base + t; q++) if (lower[q] < m) m = lower[q]
    glb[i] = m
    return evaluated
  }

  /** glb[i] = min over the groups of point i's (just rebuilt) bounds, for the listed points (all when null). */
  function refreshGlobalBounds(indices: Int32Array | null, t: number): void {
    const count = indices === null ? n : indices.length
    for (let r = 0; r < count; r++) {
      const i = indices === null ? r : indices[r]
      let m = Number.POSITIVE_INFINITY
      for (let q = i * t; q < i * t + t; q++) if (lower[q] < m) m = lower[q]
      glb[i] = m
    }
  }

  return {
    name: 'yinyang',
    n,
    d,
    // Its dense passes vary with each iteration's mix of failing points; sessions open on first use.
    kernelPasses: [],
    reset() {
      previous = null
      groups = null
    },
    async assign(centroids: Float32Array, k: number): Promise<AccelAssignResult> {
      if (!Number.isInteger(k) || k < 1 || centroids.length < k * d) {
        throw new UsageError(
          'ACCEL_BAD_CENTROIDS',
          `yinyang: ${centroids.length} values cannot hold k = ${k} centroids of d = ${d}`,
        )
      }
      const current = centroids.slice(0, k * d)
      if (previous === null || groups === null || previousK !== k) {
        const t = options.groups ?? Math.max(1, Math.round(k / 10))
        groups = await groupCentroids(current, k, d, t, options.groupingIterations ?? 5, grouped, dense)
        lower = new Float64Array(n * groups.t)
        if (grouped) {
          ownSq = new Float64Array(n)
          if (pointNormSq.length !== n) pointNormSq = rowNormsSq(points, n, d)
          stamp = new Int32Array(n)
          glb = new Float64Array(n)
          cumulativeDrift = [new Float64Array(groups.t)]
          cumulativeMax = [0]
          cumulativeCentroid = [new Float64Array(k)]
        }
        const evaluated = grouped
          ? await fullRowPass(
              boundsState(),
              null,
              current,
              permuteCentroids(current, groups, d),
              k,
              dense as DistanceMatrixKernel,
              false,
            )
          : await densePass(null, current, k)
        if (grouped) refreshGlobalBounds(null, groups.t)
        previous = current
        previousK = k
        return {
          labels: labels.slice(),
          distancesEvaluated: evaluated,
          centroidDistancesEvaluated: k * groups.t,
          changed: n,
        }
      }
      const { t, groupOf } = groups
      const drift = centroidDrift(previous, current, k, d)
      const groupDrift = new Float64Array(t)
      for (let j = 0; j < k; j++) if (drift[j] > groupDrift[groupOf[j]]) groupDrift[groupOf[j]] = drift[j]
      const before = labels.slice()
      if (grouped) {
        const evaluated = await groupedIteration(current, k, drift, groupDrift)
        previous = current
        return iterationResult(labels, before, evaluated)
      }

      // Pass 1, global filter: exact distance to the own centroid vs the loosened group bounds.
      // Survivors keep their old bounds untouched (the local filter needs them).
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

      // Pass 2: the points that failed the global filter.
      const useDense =
        dense !== undefined &&
        (options.rescan ?? 'auto') === 'auto' &&
        denseRescanPays(pending.length, k, d, options.denseMinWork)
      if (useDense) {
        evaluated += await densePass(Int32Array.from(pending), current, k)
      } else {
        const scratch = {
          oldBound: new Float64Array(t),
          min1: new Float64Array(t),
          min1Idx: new Int32Array(t),
          min2: new Float64Array(t),
          opened: new Uint8Array(t),
        }
        for (const i of pending) evaluated += filteredScan(i, current, drift, groupDrift, scratch)
      }
      previous = current
      return iterationResult(labels, before, evaluated)
    },
  }
}
