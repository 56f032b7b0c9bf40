import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { BOUND_SLACK } from './accel-state.ts'
import {
  addPair,
  beginPoint,
  type CandidatePairs,
  createCandidatePairs,
  fullRowPass,
  type GroupedBoundsState,
  groupedPass,
  permuteCentroids,
} from './grouped-pass.ts'
import { GroupScan } from './row-resolution.ts'

/** How {@link LazyGroupBounds} re-scans a failing point. */
export interface LazyRescanOptions {
  /** A point whose candidate groups hold at least this share of k centroids gets a full dense row. */
  fullRowFraction: number
  /** A point with at most this many centroids left after the local filter is settled in TypeScript. */
  localMax: number
}

/**
 * Yinyang's group bounds loosened lazily (the grouped mode's, with a dense kernel): per point the
 * iteration its bounds were last brought up to date (`stamp`) and their minimum then (`glb`); per
 * iteration the cumulative drift of every group, of every centroid and of the largest group
 * drift. A point's bounds are brought up to date only when its cheap global bound (its `glb`
 * loosened by the cumulative largest drift since its stamp) fails, so a settled point costs one
 * exact distance and a comparison.
 */
export class LazyGroupBounds {
  private readonly stamp: Int32Array
  private readonly glb: Float64Array
  private readonly cumulativeDrift: Float64Array[]
  private readonly cumulativeMax: number[] = [0]
  private readonly cumulativeCentroid: Float64Array[]

  constructor(
    private readonly s: GroupedBoundsState,
    k: number,
    private readonly options: LazyRescanOptions,
  ) {
    this.stamp = new Int32Array(s.n)
    this.glb = new Float64Array(s.n)
    this.cumulativeDrift = [new Float64Array(s.groups.t)]
    this.cumulativeCentroid = [new Float64Array(k)]
  }

  /** The first pass: full dense rows for every point; every bound set. Returns distances evaluated. */
  async fullPass(current: Float32Array, k: number, dense: DistanceMatrixKernel): Promise<number> {
    const permuted = permuteCentroids(current, this.s.groups, this.s.d)
    const evaluated = await fullRowPass(this.s, null, current, permuted, k, dense, false)
    this.refreshGlobalBounds(null)
    return evaluated
  }

  /** Appends this iteration's cumulative drifts; returns the iteration's index. */
  private advance(k: number, drift: Float64Array, groupDrift: Float64Array): number {
    const { t } = this.s.groups
    const previous = this.cumulativeDrift[this.cumulativeDrift.length - 1] as Float64Array
    const now = new Float64Array(t)
    let maxDrift = 0
    for (let q = 0; q < t; q++) {
      now[q] = previous[q] + groupDrift[q]
      if (groupDrift[q] > maxDrift) maxDrift = groupDrift[q]
    }
    this.cumulativeDrift.push(now)
    const centroidNow = new Float64Array(k)
    const centroidThen = this.cumulativeCentroid[this.cumulativeCentroid.length - 1] as Float64Array
    for (let j = 0; j < k; j++) centroidNow[j] = centroidThen[j] + drift[j]
    this.cumulativeCentroid.push(centroidNow)
    this.cumulativeMax.push((this.cumulativeMax[this.cumulativeMax.length - 1] as number) + maxDrift)
    return this.cumulativeDrift.length - 1
  }

  /**
   * One iteration: the global filter on the exact own distance, then, for failing points, the
   * group filter picks candidate groups; points with many go to full dense rows, points with few
   * survivors of the local filter to exact TypeScript distances ({@link GroupScan}), the others to
   * per-group dense blocks ({@link groupedPass}). Returns distances evaluated.
   */
  async iterate(
    current: Float32Array,
    k: number,
    drift: Float64Array,
    groupDrift: Float64Array,
    dense: DistanceMatrixKernel,
  ): Promise<number> {
    const { s, stamp, glb, cumulativeMax, cumulativeDrift, cumulativeCentroid } = this
    const { points, n, d, labels, distancesSq, ownSq, lower, groups } = s
    const { t, start } = groups
    const it = this.advance(k, drift, groupDrift)
    const now = cumulativeDrift[it] as Float64Array
    const centroidNow = cumulativeCentroid[it] as Float64Array
    const maxNow = cumulativeMax[it] as number
    const pairs = createCandidatePairs(1024, 4096)
    const full: number[] = []
    const fullAt = this.options.fullRowFraction * k
    const scan = new GroupScan(points, d, groups, lower)
    let evaluated = n
    const oldBound = new Float64Array(t)
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
      const local = this.localScan(scan, i, current, own, oldBound, shrink, centroidNow, centroidThen)
      if (local >= 0) {
        evaluated += local
        continue
      }
      beginPoint(pairs, i)
      for (let q = 0; q < t; q++) if (lower[base + q] <= own) addPair(pairs, q)
    }
    return evaluated + (await this.densePasses(Int32Array.from(full), pairs, current, k, dense))
  }

  /**
   * Yinyang's group + local filters for point i in TypeScript, with lazily loosened bounds, when
   * at most `localMax` members of its candidate groups (bound ≤ `own`) survive the local filter;
   * else −1 (the caller sends it to the dense passes). `lower` holds the bounds brought up to
   * date, `oldBound` their values when last set (at the point's previous stamp); a member of an
   * opened group is skipped when oldBound minus its own drift since then already exceeds the best
   * distance. Returns distances evaluated.
   */
  private localScan(
    scan: GroupScan,
    i: number,
    current: Float32Array,
    own: number,
    oldBound: Float64Array,
    shrink: number,
    centroidNow: Float64Array,
    centroidThen: Float64Array,
  ): number {
    const { labels, ownSq, distancesSq, lower, groups } = this.s
    const { t, start, members } = groups
    const { localMax } = this.options
    const a = labels[i]
    const base = i * t
    // Counted up to just past localMax: enough to decide.
    let survivors = 0
    for (let q = 0; q < t && survivors <= localMax; q++) {
      if (!(lower[base + q] <= own)) continue
      for (let p = start[q]; p < start[q + 1]; p++) {
        const j = members[p]
        if (j !== a && oldBound[q] * shrink - (centroidNow[j] - centroidThen[j]) * (1 + BOUND_SLACK) <= own)
          survivors++
      }
    }
    if (survivors > localMax) return -1
    const best = scan.scan(i, current, a, own, ownSq[i], oldBound, shrink, centroidNow, centroidThen)
    if (best !== a) {
      labels[i] = best
      ownSq[i] = scan.bestSq
      distancesSq[i] = scan.bestSq
    }
    this.refreshGlobalBound(i)
    return scan.evaluated
  }

  /** Full dense rows for `full`, per-group dense blocks for `pairs`; their global bounds refreshed. */
  private async densePasses(
    full: Int32Array,
    pairs: CandidatePairs,
    current: Float32Array,
    k: number,
    dense: DistanceMatrixKernel,
  ): Promise<number> {
    const permuted = permuteCentroids(current, this.s.groups, this.s.d)
    let evaluated = 0
    if (full.length > 0) evaluated += await fullRowPass(this.s, full, current, permuted, k, dense, true)
    evaluated += await groupedPass(this.s, pairs, current, permuted, dense)
    this.refreshGlobalBounds(full)
    this.refreshGlobalBounds(pairs.points.subarray(0, pairs.pointCount))
    return evaluated
  }

  /** glb[i] = min over the groups of point i's (just rebuilt) bounds, for the listed points (all when null). */
  refreshGlobalBounds(indices: Int32Array | null): void {
    const count = indices === null ? this.s.n : indices.length
    for (let r = 0; r < count; r++) this.refreshGlobalBound(indices === null ? r : indices[r])
  }

  /** glb[i] = min over the groups of point i's bounds. */
  private refreshGlobalBound(i: number): void {
    const { lower, groups } = this.s
    const { t } = groups
    let m = Number.POSITIVE_INFINITY
    for (let q = i * t; q < i * t + t; q++) if (lower[q] < m) m = lower[q]
    this.glb[i] = m
  }
}
