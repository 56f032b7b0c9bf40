import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import type { AllNearestBounds } from './accel-state.ts'
import type { CentroidGroups } from './centroid-groups.ts'
import { forEachDistanceRow, maxRowNormSq } from './dense-pass.ts'

/**
 * What the dense Yinyang passes read and write: the partition, its labels and exact squared
 * distances, and the n × t group lower bounds (distances, not squared).
 */
export interface GroupedBoundsState {
  points: Float32Array
  n: number
  d: number
  labels: Int32Array
  distancesSq: Float32Array
  /** Exact float64 squared distance of each point to `labels[i]` (float32 `distancesSq` would misrank near-ties). */
  ownSq: Float64Array
  /** ‖x‖² of every point (for the dense kernel's error bound). */
  pointNormSq: Float64Array
  lower: Float64Array
  groups: CentroidGroups
}

/** The centroids reordered so every group's members are contiguous rows (group 0 first, members ascending). */
export function permuteCentroids(centroids: Float32Array, groups: CentroidGroups, d: number): Float32Array {
  const k = groups.members.length
  const out = new Float32Array(k * d)
  for (let p = 0; p < k; p++) {
    const j = groups.members[p]
    out.set(centroids.subarray(j * d, j * d + d), p * d)
  }
  return out
}

/** Norm given to padding rows: their distances are ~1e30, never a group's minimum. */
const PAD_NORM_SQ = 1e30

/**
 * The centroids laid out member-major for {@link DistanceMatrixKernel.groupMinima}: G = the
 * largest group's size, row p·t + q holds member p of group q, short groups padded with zero
 * rows whose ‖c‖² input is {@link PAD_NORM_SQ}. `centroidOfRow` maps rows back (−1: padding).
 */
export function memberMajor(
  centroids: Float32Array,
  groups: CentroidGroups,
  d: number,
): { rows: Float32Array; normsSq: Float32Array; centroidOfRow: Int32Array } {
  const { t, start, members } = groups
  let size = 1
  for (let q = 0; q < t; q++) size = Math.max(size, start[q + 1] - start[q])
  const rows = new Float32Array(size * t * d)
  const normsSq = new Float32Array(size * t).fill(PAD_NORM_SQ)
  const centroidOfRow = new Int32Array(size * t).fill(-1)
  for (let q = 0; q < t; q++) {
    for (let p = 0; p < start[q + 1] - start[q]; p++) {
      const j = members[start[q] + p]
      const row = p * t + q
      rows.set(centroids.subarray(j * d, j * d + d), row * d)
      let s = 0
      for (let x = j * d; x < j * d + d; x++) s += centroids[x] * centroids[x]
      normsSq[row] = s
      centroidOfRow[row] = j
    }
  }
  return { rows, normsSq, centroidOfRow }
}

/**
 * {@link fullRowPass} through the kernel's `groupMinima`: per point its nearest centroid j* and
 * every group's minimum over the members other than j* come back (t + 1 values, not k). j* is
 * checked exactly; any group whose minimum is within the error bound of the best is evaluated
 * exactly in full (near-ties only). Each group bound is its minimum − error bound (it covers
 * every member but j*; when the exact best is another centroid, j*'s exact distance is folded
 * into its group's bound).
 */
async function fullGroupMinimaPass(
  s: GroupedBoundsState,
  indices: Int32Array | null,
  centroids: Float32Array,
  k: number,
  dense: DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'groupMinima'>>,
  ownKnown: boolean,
): Promise<number> {
  const { points, d, labels, distancesSq, ownSq, lower, groups, pointNormSq } = s
  const { t, start, members, groupOf } = groups
  const layout = memberMajor(centroids, groups, d)
  const maxNormSq = maxRowNormSq(centroids, k, d)
  const count = indices === null ? s.n : indices.length
  const gather = indices === null ? null : new Float32Array(Math.min(GROUPED_GATHER_ROWS, count) * d)
  let exact = 0
  for (let from = 0; from < count; from += GROUPED_GATHER_ROWS) {
    const to = Math.min(count, from + GROUPED_GATHER_ROWS)
    let block: Float32Array
    if (gather === null || indices === null) block = points.subarray(from * d, to * d)
    else {
      for (let r = from; r < to; r++)
        gather.set(points.subarray(indices[r] * d, indices[r] * d + d), (r - from) * d)
      block = gather.subarray(0, (to - from) * d)
    }
    const got = await dense.groupMinima(block, layout.rows, layout.normsSq, t, d)
    const { nearest, nearestSq, groupMinSq } = got
    for (let r = from; r < to; r++) {
      const i = indices === null ? r : indices[r]
      const eb = dense.distanceErrorBound(pointNormSq[i], maxNormSq, d)
      const o = (r - from) * t
      const jStar = layout.centroidOfRow[nearest[r - from]]
      const own = ownKnown ? labels[i] : -1
      let best = own
      let bestSq = ownKnown ? ownSq[i] : Number.POSITIVE_INFINITY
      let jStarSq = bestSq
      if (jStar !== own) {
        jStarSq = rowDistanceSq(points, i, centroids, jStar, d)
        exact++
        if (jStarSq < bestSq || (jStarSq === bestSq && jStar < best)) {
          best = jStar
          bestSq = jStarSq
        }
      }
      // Any other centroid is ≥ its group minimum − eb; only groups within reach of the best are opened.
      const cap = Math.min(bestSq, nearestSq[r - from] + eb)
      for (let q = 0; q < t; q++) {
        if (groupMinSq[o + q] - eb > cap) continue
        for (let p = start[q]; p < start[q + 1]; p++) {
          const j = members[p]
          if (j === own || j === jStar) continue
          const dj = rowDistanceSq(points, i, centroids, j, d)
          exact++
          if (dj < bestSq || (dj === bestSq && j < best)) {
            best = j
            bestSq = dj
          }
        }
      }
      const base = i * t
      for (let q = 0; q < t; q++) lower[base + q] = Math.sqrt(Math.max(0, groupMinSq[o + q] - eb))
      if (best !== jStar) {
        const g = groupOf[jStar]
        const dist = Math.sqrt(jStarSq)
        if (dist < lower[base + g]) lower[base + g] = dist
      }
      labels[i] = best
      ownSq[i] = bestSq
      distancesSq[i] = bestSq
    }
  }
  return count * k + exact
}

/**
 * The full pass from `all` (the int8 kernel over the same rows held as bytes): each point's exact
 * label and distance, and each group bound the smallest lower bound over its members but the
 * label — a listed member's own, else the floor on every centroid not listed (valid, looser than
 * group minima). Returns the distances evaluated (k per point).
 */
export async function nearestBoundsPass(
  s: GroupedBoundsState,
  centroids: Float32Array,
  k: number,
  all: AllNearestBounds,
): Promise<number> {
  const { d, labels, distancesSq, ownSq, lower, groups } = s
  const { t, groupOf } = groups
  await all(centroids, d, (i, label, nearestSq, ids, lowSq, count, floorSq) => {
    const base = i * t
    lower.fill(floorSq, base, base + t)
    for (let c = 0; c < count; c++) {
      const q = base + groupOf[ids[c]]
      if (ids[c] !== label && lowSq[c] < lower[q]) lower[q] = lowSq[c]
    }
    for (let q = base; q < base + t; q++) lower[q] = Math.sqrt(Math.max(0, lower[q]))
    labels[i] = label
    distancesSq[i] = nearestSq
    if (ownSq.length > 0) ownSq[i] = nearestSq
  })
  return s.n * k
}

// Rows gathered per dense call of the grouped pass: bounds the copy (8 MiB at d = 128).
const GROUPED_GATHER_ROWS = 16_384

/**
 * Full dense rows for the listed points (all when null), against the permuted centroids: each
 * row is scanned once for the per-group two smallest values, the near-minimum candidates are
 * settled with exact distances (ties to the lowest index), and every group bound is rebuilt from
 * the row (value − error bound, the point's new centroid excluded). `ownSq` (exact squared
 * distance to the current label, or null on the first pass) caps the candidates. Returns the
 * distances evaluated (k per row plus the exact ones).
 */
export async function fullRowPass(
  s: GroupedBoundsState,
  indices: Int32Array | null,
  centroids: Float32Array,
  permuted: Float32Array,
  k: number,
  dense: DistanceMatrixKernel,
  ownKnown: boolean,
): Promise<number> {
  if (dense.groupMinima !== undefined) {
    const withGroups = dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'groupMinima'>>
    return fullGroupMinimaPass(s, indices, centroids, k, withGroups, ownKnown)
  }
  const { points, d, labels, distancesSq, ownSq, lower, groups } = s
  const { t, start, members } = groups
  const min1 = new Float64Array(t)
  const min1p = new Int32Array(t)
  const min2 = new Float64Array(t)
  let exact = 0
  const evaluated = await forEachDistanceRow(
    points,
    s.n,
    d,
    permuted,
    k,
    indices,
    dense,
    (i, row, offset, eb) => {
      let rowMin = Number.POSITIVE_INFINITY
      for (let q = 0; q < t; q++) {
        let m1 = Number.POSITIVE_INFINITY
        let m1p = -1
        let m2 = Number.POSITIVE_INFINITY
        for (let p = start[q]; p < start[q + 1]; p++) {
          const v = row[offset + p]
          if (v < m1) {
            m2 = m1
            m1 = v
            m1p = p
          } else if (v < m2) m2 = v
        }
        min1[q] = m1
        min1p[q] = m1p
        min2[q] = m2
        if (m1 < rowMin) rowMin = m1
      }
      // The exact best is at most `cap`; a centroid can only be it if value − eb ≤ cap.
      let best = -1
      let bestSq = Number.POSITIVE_INFINITY
      let cap = rowMin + eb
      if (ownKnown) {
        best = labels[i]
        bestSq = ownSq[i]
        if (bestSq < cap) cap = bestSq
      }
      for (let q = 0; q < t; q++) {
        if (min1[q] - eb > cap) continue
        // Usually one member; when the runner-up is also close, check the whole group.
        const all = min2[q] - eb <= cap
        for (let p = start[q]; p < start[q + 1]; p++) {
          if (!(all ? row[offset + p] - eb <= cap : p === min1p[q])) continue
          const j = members[p]
          if (ownKnown && j === labels[i]) continue
          const dj = rowDistanceSq(points, i, centroids, j, d)
          exact++
          if (dj < bestSq || (dj === bestSq && j < best)) {
            best = j
            bestSq = dj
          }
        }
      }
      const base = i * t
      for (let q = 0; q < t; q++) {
        // Every member but the new centroid is ≥ (its value − eb); min1 is the group's smallest value.
        const v = members[min1p[q]] === best ? min2[q] : min1[q]
        lower[base + q] = Math.sqrt(Math.max(0, v - eb))
      }
      labels[i] = best
      ownSq[i] = bestSq
      distancesSq[i] = bestSq
    },
  )
  return evaluated + exact
}

/** Growable list of (pending point, candidate group) pairs, in point order. */
export interface CandidatePairs {
  /** Pending points in order, and where each one's pairs start (length points + 1). */
  points: Int32Array
  pairStart: Int32Array
  /** Group of each pair. */
  group: Int32Array
  count: number
  pointCount: number
}

/** An empty pair list with room to grow. */
export function createCandidatePairs(capacityPoints: number, capacityPairs: number): CandidatePairs {
  return {
    points: new Int32Array(Math.max(16, capacityPoints)),
    pairStart: new Int32Array(Math.max(16, capacityPoints) + 1),
    group: new Int32Array(Math.max(16, capacityPairs)),
    count: 0,
    pointCount: 0,
  }
}

/** Starts the pairs of point i. */
export function beginPoint(c: CandidatePairs, i: number): void {
  if (c.pointCount + 1 >= c.points.length) {
    const grownPoints = new Int32Array(c.points.length * 2)
    grownPoints.set(c.points)
    c.points = grownPoints
    const grownStart = new Int32Array(grownPoints.length + 1)
    grownStart.set(c.pairStart)
    c.pairStart = grownStart
  }
  c.points[c.pointCount] = i
  c.pairStart[c.pointCount] = c.count
  c.pointCount++
  c.pairStart[c.pointCount] = c.count
}

/** Adds candidate group q to the current point. */
export function addPair(c: CandidatePairs, q: number): void {
  if (c.count >= c.group.length) {
    const grown = new Int32Array(c.group.length * 2)
    grown.set(c.group)
    c.group = grown
  }
  c.group[c.count++] = q
  c.pairStart[c.pointCount] = c.count
}

/**
 * The grouped dense pass: each pending point has a few candidate groups (their bound fell below
 * the point's exact distance to its own centroid). Pairs are sorted by group; per group, its
 * points' rows are gathered and one dense call computes their distances to that group's members
 * only (BLAS speed, no TypeScript distance loop). Each pair keeps its group's two smallest
 * values; then per point the near-minimum candidates are settled exactly (own centroid's exact
 * distance included), and the candidate groups' bounds are rebuilt. Groups that are not
 * candidates keep their loosened bounds (already in `lower`). Returns distances evaluated.
 */
export async function groupedPass(
  s: GroupedBoundsState,
  pairs: CandidatePairs,
  centroids: Float32Array,
  permuted: Float32Array,
  dense: DistanceMatrixKernel,
): Promise<number> {
  const { points, d, labels, distancesSq, ownSq, lower, groups } = s
  const { t, start, members, groupOf } = groups
  const P = pairs.count
  if (P === 0) return 0
  const k = members.length
  const maxNormSq = maxRowNormSq(centroids, k, d)
  // Error bound per pending point (by its position in the pending list) and each pair's point position.
  const eb = new Float64Array(pairs.pointCount)
  const pairPos = new Int32Array(P)
  for (let r = 0; r < pairs.pointCount; r++) {
    const i = pairs.points[r]
    eb[r] = dense.distanceErrorBound(s.pointNormSq[i], maxNormSq, d)
    for (let e = pairs.pairStart[r]; e < pairs.pairStart[r + 1]; e++) pairPos[e] = r
  }
  // Counting sort of the pairs by group.
  const byGroupStart = new Int32Array(t + 1)
  for (let e = 0; e < P; e++) byGroupStart[pairs.group[e] + 1]++
  for (let q = 0; q < t; q++) byGroupStart[q + 1] += byGroupStart[q]
  const fill = byGroupStart.slice(0, t)
  const order = new Int32Array(P)
  for (let e = 0; e < P; e++) order[fill[pairs.group[e]]++] = e
  const m1 = new Float64Array(P)
  const m1p = new Int32Array(P)
  const m2 = new Float64Array(P)
  const gather = new Float32Array(Math.min(GROUPED_GATHER_ROWS, P) * d)
  let evaluated = 0
  for (let q = 0; q < t; q++) {
    const size = start[q + 1] - start[q]
    const group = permuted.subarray(start[q] * d, start[q + 1] * d)
    for (let from = byGroupStart[q]; from < byGroupStart[q + 1]; from += GROUPED_GATHER_ROWS) {
      const to = Math.min(byGroupStart[q + 1], from + GROUPED_GATHER_ROWS)
      for (let r = from; r < to; r++) {
        const i = pairs.points[pairPos[order[r]]]
        gather.set(points.subarray(i * d, i * d + d), (r - from) * d)
      }
      const dist = await dense.distances(gather.subarray(0, (to - from) * d), group, d)
      evaluated += (to - from) * size
      for (let r = from; r < to; r++) {
        const o = (r - from) * size
        let a = Number.POSITIVE_INFINITY
        let ap = -1
        let b = Number.POSITIVE_INFINITY
        for (let p = 0; p < size; p++) {
          const v = dist[o + p]
          if (v < a) {
            b = a
            a = v
            ap = p
          } else if (v < b) b = v
        }
        const e = order[r]
        m1[e] = a
        m1p[e] = start[q] + ap
        m2[e] = b
      }
    }
  }
  // Settle each pending point exactly and rebuild its candidate groups' bounds.
  for (let r = 0; r < pairs.pointCount; r++) {
    const i = pairs.points[r]
    const e0 = pairs.pairStart[r]
    const e1 = pairs.pairStart[r + 1]
    const err = eb[r]
    const own = labels[i]
    let best = own
    let bestSq = ownSq[i]
    let cap = bestSq
    for (let e = e0; e < e1; e++) if (m1[e] + err < cap) cap = m1[e] + err
    let ownGroupOpened = false
    for (let e = e0; e < e1; e++) {
      const q = pairs.group[e]
      if (q === groupOf[own]) ownGroupOpened = true
      if (m1[e] - err > cap) continue
      const all = m2[e] - err <= cap
      for (let p = start[q]; p < start[q + 1]; p++) {
        if (!(all || p === m1p[e])) continue
        const j = members[p]
        if (j === own) continue
        const dj = rowDistanceSq(points, i, centroids, j, d)
        evaluated++
        if (dj < bestSq || (dj === bestSq && j < best)) {
          best = j
          bestSq = dj
        }
      }
    }
    const base = i * t
    for (let e = e0; e < e1; e++) {
      const v = members[m1p[e]] === best ? m2[e] : m1[e]
      lower[base + pairs.group[e]] = Math.sqrt(Math.max(0, v - err))
    }
    if (best !== own) {
      // The old centroid is now one of its group's "others"; an opened group already counted it.
      const ga = groupOf[own]
      const ownDist = Math.sqrt(ownSq[i])
      if (!ownGroupOpened && ownDist < lower[base + ga]) lower[base + ga] = ownDist
      labels[i] = best
      ownSq[i] = bestSq
      distancesSq[i] = bestSq
    }
  }
  return evaluated
}
