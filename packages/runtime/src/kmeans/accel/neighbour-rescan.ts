import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { BOUND_SLACK } from './accel-state.ts'
import { forEachDistanceRow, rowNormsSq } from './dense-pass.ts'

/** What {@link neighbourRescan} decided for one point: its exact nearest and a bound on all others. */
export type NeighbourSettle = (i: number, best: number, bestDist: number, othersLower: number) => void

/** What {@link neighbourRescan} did. */
export interface NeighbourRescanResult {
  /** Point–centroid distances evaluated (one own distance per point plus the neighbours scanned). */
  evaluated: number
  /** Centroid–centroid distances evaluated (rows of the in-play centroids against all k). */
  centroidDistancesEvaluated: number
  /** Points left to the caller's dense re-scan: their centroid's truncated list could not settle them. */
  unsettled: Int32Array
}

/**
 * A centroid keeps at most its k / NEIGHBOUR_LIST_SHARE nearest neighbours: a TypeScript
 * distance costs ~70 BLAS multiply-adds on 2 threads (1 ns against 7.5 s / (200k · 20k · 128)),
 * so a point that would scan more than ~k / 70 is cheaper as a dense row (left unsettled).
 */
const NEIGHBOUR_LIST_SHARE = 64

/** Rows of centroid distances sampled to decide whether the neighbourhoods pay. */
const PLAN_ROWS = 256
/** A point's dense re-scan row, gathered, against a contiguous pass (per centroid, in BLAS units). */
const GATHERED_ROW = 1.3
/** Share of the plain re-scan's cost the neighbourhoods may reach (the estimate is rough). */
const PAYS_BELOW = 0.6
/**
 * Share of the sampled points whose list the chosen length must cover to the cut (the rest end
 * in the dense re-scan, exactly). The lists' length sets the TopK's K and the lists' memory:
 * at k = 100,000 the cap k/64 is 1,562 entries per centroid (156 M entries, ~1.9 GB).
 */
const LIST_COVERS = 0.99
/** Shortest list chosen from the sample (a few entries cost nothing and absorb sampling noise). */
const MIN_LIST = 16
/** Centroid rows per `nearestM` call: its output (count entries a row) stays ~100 MB, not GBs. */
const LIST_BLOCK_ROWS = 8_192

/**
 * Whether the neighbourhood re-scan is predicted to cost less than a dense row per point, from
 * the sampled centroids' lists: for their points, the neighbours each would scan (those with
 * ‖c_j − c_a‖ − u ≤ u, the cut before any improvement) at ~70 BLAS multiply-adds per TypeScript
 * one ({@link NEIGHBOUR_LIST_SHARE}), and those a truncated list could not settle (a gathered dense
 * row each), scaled to all rows, plus the rows themselves. Also returns the list length that
 * reaches the cut for {@link LIST_COVERS} of the sampled points (one entry past the cut settles
 * a point), at least {@link MIN_LIST}: the rows are then fetched that long only.
 */
function pays(
  sample: Int32Array,
  rowCount: number,
  count: number,
  k: number,
  ownSq: Float64Array,
  labels: Int32Array,
  indices: Int32Array | null,
  lists: Array<{ j: Int32Array; dist: Float64Array }>,
  outside: Float64Array,
): { pays: boolean; listLength: number } {
  const sampled = new Uint8Array(k)
  for (const a of sample) sampled[a] = 1
  let scans = 0
  let unsettled = 0
  const needs: number[] = []
  for (let r = 0; r < count; r++) {
    const a = labels[indices === null ? r : indices[r]] as number
    if (sampled[a] === 0) continue
    const u = Math.sqrt(ownSq[r] as number)
    const list = lists[a] as { j: Int32Array; dist: Float64Array }
    let p = 0
    while (p < list.dist.length && (list.dist[p] as number) <= 2 * u) p++
    scans += p
    needs.push(p + 1)
    if (p === list.dist.length && !((outside[a] as number) > 2 * u)) unsettled++
  }
  const scale = rowCount / sample.length
  const cost = rowCount * k + scale * (scans * NEIGHBOUR_LIST_SHARE + unsettled * k * GATHERED_ROW)
  needs.sort((x, y) => x - y)
  const covered = needs.length === 0 ? 0 : (needs[Math.floor(LIST_COVERS * (needs.length - 1))] as number)
  return {
    pays: cost < PAYS_BELOW * count * k * GATHERED_ROW,
    listLength: Math.max(MIN_LIST, covered),
  }
}

/**
 * Reorders `ds[0, m)` (and `js` alongside) so that its `keep` smallest values come first
 * (Hoare quickselect, expected O(m)).
 */
function selectSmallest(ds: Float64Array, js: Int32Array, m: number, keep: number): void {
  let lo = 0
  let hi = m - 1
  while (lo < hi) {
    const pivot = ds[(lo + hi) >> 1]
    let a = lo
    let b = hi
    while (a <= b) {
      while (ds[a] < pivot) a++
      while (ds[b] > pivot) b--
      if (a <= b) {
        const td = ds[a]
        ds[a] = ds[b]
        ds[b] = td
        const tj = js[a]
        js[a] = js[b]
        js[b] = tj
        a++
        b--
      }
    }
    if (keep - 1 <= b) hi = b
    else if (keep - 1 >= a) lo = a
    else return
  }
}

const UP = 1 + BOUND_SLACK
const DOWN = 1 - BOUND_SLACK

/**
 * Exact nearest centroids for the listed points (all when null) through centroid
 * neighbourhoods, not a dense row per point: by the triangle inequality a centroid j can be
 * nearer to x than its centroid a (at exact distance u) only if ‖c_j − c_a‖ ≤ 2u. So each
 * centroid a in play gets, from one dense pass over its row of centroid–centroid distances, the
 * list of centroids within 2·max u of its points (sorted by distance); each point then evaluates
 * exactly only the neighbours with ‖c_j − c_a‖ − u ≤ its best distance so far (ties go to the
 * lowest index: the cut is strict). Every centroid not evaluated is at least ‖c_j − c_a‖ − u away,
 * which gives the point's bound on all others. On clustered data early in a run (centroids
 * settled into their clusters, most points still failing a single Hamerly bound) this costs a
 * k × (centroids in play) dense pass plus a few distances per point, instead of n × k.
 * Centroid–centroid distances from a dense kernel are lowered by its error bound, so bounds
 * stay valid in float32. `labels` are the points' current centroids (not changed here).
 * Resolves null, having settled nothing, when a sample of the rows predicts that it would cost
 * more than the caller's dense re-scan of the same points (see {@link pays}).
 */
export async function neighbourRescan(
  points: Float32Array,
  n: number,
  d: number,
  centroids: Float32Array,
  k: number,
  labels: Int32Array,
  indices: Int32Array | null,
  dense: DistanceMatrixKernel | undefined,
  settle: NeighbourSettle,
): Promise<NeighbourRescanResult | null> {
  const count = indices === null ? n : indices.length
  const ownSq = new Float64Array(count)
  const reach = new Float64Array(k)
  const inPlay = new Uint8Array(k)
  for (let r = 0; r < count; r++) {
    const i = indices === null ? r : indices[r]
    const a = labels[i]
    ownSq[r] = rowDistanceSq(points, i, centroids, a, d)
    inPlay[a] = 1
    if (ownSq[r] > reach[a]) reach[a] = ownSq[r]
  }
  const rows: number[] = []
  for (let a = 0; a < k; a++) {
    reach[a] = Math.sqrt(reach[a])
    if (inPlay[a] === 1) rows.push(a)
  }
  const maxList = Math.max(8, Math.floor(k / NEIGHBOUR_LIST_SHARE))
  // Per centroid in play: its nearest neighbours within reach (ascending distance), at most maxList.
  const lists: Array<{ j: Int32Array; dist: Float64Array }> = new Array(k)
  // The smallest (lowered) distance from a to a centroid outside its list.
  const outside = new Float64Array(k).fill(Number.POSITIVE_INFINITY)
  const js = new Int32Array(k)
  const ds = new Float64Array(k)
  const visit = (a: number, row: Float32Array | Float64Array, offset: number, eb: number): void => {
    // Beyond 2·(largest u of its points) no centroid can win for any of them. Compared squared
    // (one sqrt per kept entry, not per entry): low = √(value − eb)·DOWN ≤ radius.
    const radius = 2 * reach[a] * UP
    const cutSq = (radius / DOWN) * (radius / DOWN) + eb
    let m = 0
    let outSq = Number.POSITIVE_INFINITY
    for (let j = 0; j < k; j++) {
      const v = row[offset + j]
      if (v > cutSq) {
        if (v < outSq && j !== a) outSq = v
      } else if (j !== a) {
        js[m] = j
        ds[m] = Math.sqrt(Math.max(0, v - eb)) * DOWN
        m++
      }
    }
    let out = Math.sqrt(Math.max(0, outSq - eb)) * DOWN
    if (m > maxList) {
      selectSmallest(ds, js, m, maxList)
      for (let p = maxList; p < m; p++) if (ds[p] < out) out = ds[p]
      m = maxList
    }
    outside[a] = out
    const order = Array.from({ length: m }, (_, p) => p).sort((p, q) => ds[p] - ds[q] || js[p] - js[q])
    lists[a] = { j: Int32Array.from(order, (p) => js[p]), dist: Float64Array.from(order, (p) => ds[p]) }
  }
  /** {@link visit} from a row's `count` nearest (ascending): every centroid not returned is ≥ the last. */
  const listFromNearest = (
    a: number,
    indicesOut: Int32Array,
    valuesOut: Float32Array,
    offset: number,
    count: number,
    eb: number,
  ): void => {
    const radius = 2 * reach[a] * UP
    let m = 0
    let out =
      count < k
        ? Math.sqrt(Math.max(0, (valuesOut[offset + count - 1] as number) - eb)) * DOWN
        : Number.POSITIVE_INFINITY
    for (let p = 0; p < count; p++) {
      const j = indicesOut[offset + p] as number
      if (j === a) continue
      const low = Math.sqrt(Math.max(0, (valuesOut[offset + p] as number) - eb)) * DOWN
      if (low > radius || m === maxList) {
        if (low < out) out = low
      } else {
        js[m] = j
        ds[m] = low
        m++
      }
    }
    outside[a] = out
    // Lowered values of an ascending row can tie or swap by index only: sort as visit does.
    const order = Array.from({ length: m }, (_, p) => p).sort((p, q) => ds[p] - ds[q] || js[p] - js[q])
    lists[a] = { j: Int32Array.from(order, (p) => js[p]), dist: Float64Array.from(order, (p) => ds[p]) }
  }
  // A sample of the rows first: on data where points sit nearly tied between many centroids the
  // lists say little and most points would end in the dense re-scan anyway (then the caller's
  // plain re-scan is cheaper than rows + lists + that re-scan).
  const sample = Int32Array.from(
    { length: Math.min(rows.length, PLAN_ROWS) },
    (_, r) => rows[Math.floor((r * rows.length) / Math.min(rows.length, PLAN_ROWS))] as number,
  )
  // With a kernel that returns only each row's nearest (ORT's TopK), the k × k block never
  // reaches JavaScript: at k = 20,000 the full rows cost ~5.5 s there, 9 GMAC/s.
  const nearestM = dense?.nearestM?.bind(dense)
  // Each row's nearest: its list (≤ maxList) plus itself plus one more for the bound outside.
  let keep = Math.min(k, maxList + 2)
  const normsSq = nearestM ? rowNormsSq(centroids, k, d) : new Float64Array(0)
  let maxNormSq = 0
  for (const v of normsSq) if (v > maxNormSq) maxNormSq = v
  const listRows = async (which: Int32Array): Promise<void> => {
    if (!nearestM || !dense) {
      await forEachDistanceRow(centroids, k, d, centroids, k, which, dense, visit)
      return
    }
    for (let from = 0; from < which.length; from += LIST_BLOCK_ROWS) {
      const part = which.subarray(from, Math.min(which.length, from + LIST_BLOCK_ROWS))
      const block = new Float32Array(part.length * d)
      for (let r = 0; r < part.length; r++)
        block.set(centroids.subarray((part[r] as number) * d, (part[r] as number) * d + d), r * d)
      const got = await nearestM(block, centroids.subarray(0, k * d), keep, d)
      for (let r = 0; r < part.length; r++) {
        const a = part[r] as number
        const eb = dense.distanceErrorBound(normsSq[a] as number, maxNormSq, d)
        listFromNearest(a, got.indices, got.distancesSq, r * keep, keep, eb)
      }
    }
  }
  await listRows(sample)
  const plan = pays(sample, rows.length, count, k, ownSq, labels, indices, lists, outside)
  if (!plan.pays) return null
  // Lists as long as the sample needs (+ the row itself + one for the bound outside), not k/64:
  // a truncated list only sends its point to the dense re-scan.
  keep = Math.min(keep, plan.listLength + 2)
  await listRows(Int32Array.from(rows))
  let evaluated = count
  const unsettled: number[] = []
  for (let r = 0; r < count; r++) {
    const i = indices === null ? r : indices[r]
    const a = labels[i]
    const list = lists[a] as { j: Int32Array; dist: Float64Array }
    let best = a
    let bestSq = ownSq[r]
    const u = Math.sqrt(bestSq)
    let bestDist = u
    // The smallest exact distance among evaluated centroids other than the best (a included once displaced).
    let second = Number.POSITIVE_INFINITY
    let rest = outside[a] - u
    let exhausted = true
    for (let p = 0; p < list.j.length; p++) {
      const gap = list.dist[p] - u
      if (gap > bestDist * UP) {
        rest = gap
        exhausted = false
        break
      }
      const j = list.j[p]
      const dj = rowDistanceSq(points, i, centroids, j, d)
      evaluated++
      if (dj < bestSq || (dj === bestSq && j < best)) {
        const displaced = bestDist
        if (displaced < second) second = displaced
        best = j
        bestSq = dj
        bestDist = Math.sqrt(dj)
      } else {
        const v = Math.sqrt(dj)
        if (v < second) second = v
      }
    }
    // A truncated list may end before the cut: then the centroids outside it are not ruled out.
    if (exhausted && !(rest > bestDist * UP)) {
      unsettled.push(i)
      continue
    }
    settle(i, best, bestDist, Math.max(0, Math.min(second, rest * DOWN)))
  }
  return {
    evaluated,
    centroidDistancesEvaluated: rows.length * k,
    unsettled: Int32Array.from(unsettled),
  }
}
