import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { BOUND_SLACK } from './accel-state.ts'
import { CentroidNeighbourhoods, type NeighbourList } from './centroid-neighbourhoods.ts'
import {
  type ListDotsKernel,
  NearestSoFar,
  type NeighbourSettle,
  settleThroughBatches,
} from './neighbour-batches.ts'

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
  lists: NeighbourList[],
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
    const list = lists[a] as NeighbourList
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
  const hoods = new CentroidNeighbourhoods(centroids, k, d, reach, maxList, dense)
  // A sample of the rows first: on data where points sit nearly tied between many centroids the
  // lists say little and most points would end in the dense re-scan anyway (then the caller's
  // plain re-scan is cheaper than rows + lists + that re-scan).
  const sample = Int32Array.from(
    { length: Math.min(rows.length, PLAN_ROWS) },
    (_, r) => rows[Math.floor((r * rows.length) / Math.min(rows.length, PLAN_ROWS))] as number,
  )
  await hoods.fetch(sample)
  const plan = pays(sample, rows.length, count, k, ownSq, labels, indices, hoods.lists, hoods.outside)
  if (!plan.pays) return null
  // Lists by threshold while rows hold few entries within their radius (the kernel's `within`),
  // else as long as the sample needs (+ the row itself + one for the bound outside), not k/64:
  // a truncated list only sends its point to the dense re-scan.
  if (hoods.entriesPerRow > maxList) hoods.useWithin = false
  hoods.keep = Math.min(hoods.keep, plan.listLength + 2)
  const inSample = new Uint8Array(k)
  for (const a of sample) inSample[a] = 1
  await hoods.fetch(Int32Array.from(rows.filter((a) => inSample[a] === 0)))
  const settled =
    dense?.listDots !== undefined
      ? await settleThroughBatches(
          { points, d, centroids, labels, indices, count, ownSq },
          k,
          hoods,
          dense as ListDotsKernel,
          settle,
        )
      : settleThroughLists(points, d, centroids, labels, indices, count, ownSq, hoods, settle)
  return {
    evaluated: settled.evaluated,
    centroidDistancesEvaluated: rows.length * k,
    unsettled: settled.unsettled,
  }
}

/**
 * Each listed point evaluates exactly the neighbours of its centroid with ‖c_j − c_a‖ − u ≤ its
 * best distance so far (ties to the lowest index: the cut is strict); settled points go to
 * `settle` with a bound on every centroid not evaluated, the others (a truncated list ended
 * before the cut) come back unsettled. Counts one own distance per point plus the neighbours.
 */
function settleThroughLists(
  points: Float32Array,
  d: number,
  centroids: Float32Array,
  labels: Int32Array,
  indices: Int32Array | null,
  count: number,
  ownSq: Float64Array,
  hoods: CentroidNeighbourhoods,
  settle: NeighbourSettle,
): { evaluated: number; unsettled: Int32Array } {
  let evaluated = count
  const unsettled: number[] = []
  const near = new NearestSoFar()
  for (let r = 0; r < count; r++) {
    const i = indices === null ? r : indices[r]
    const a = labels[i]
    const list = hoods.lists[a] as NeighbourList
    near.start(a, ownSq[r])
    const u = near.bestDist
    let rest = hoods.outside[a] - u
    let exhausted = true
    for (let p = 0; p < list.j.length; p++) {
      const gap = list.dist[p] - u
      if (gap > near.bestDist * UP) {
        rest = gap
        exhausted = false
        break
      }
      const j = list.j[p]
      near.offer(j, rowDistanceSq(points, i, centroids, j, d))
      evaluated++
    }
    // A truncated list may end before the cut: then the centroids outside it are not ruled out.
    if (exhausted && !(rest > near.bestDist * UP)) {
      unsettled.push(i)
      continue
    }
    settle(i, near.best, near.bestDist, Math.max(0, Math.min(near.second, rest * DOWN)))
  }
  return { evaluated, unsettled: Int32Array.from(unsettled) }
}
