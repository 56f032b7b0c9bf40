import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { BOUND_SLACK } from './accel-state.ts'
import { outsideThreshold, reachThreshold } from './centroid-neighbourhoods.ts'
import { maxRowNormSq, rowNormsSq } from './dense-pass.ts'
import { forEachListBlock, type ListDotsKernel } from './neighbour-batches.ts'

/**
 * Hamerly's per-point bounds (n each): the label, an upper bound on the distance to it, a lower
 * bound on the distance to every other centroid, and `ownLow`, a lower bound on the distance to
 * the label (when even it fails the bound test, tightening the upper bound cannot save the point).
 */
export interface HamerlyBounds {
  labels: Int32Array
  upper: Float64Array
  lower: Float64Array
  ownLow: Float64Array
}

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
const UP = 1 + BOUND_SLACK
const DOWN = 1 - BOUND_SLACK
/**
 * From this many moved centroids the pass goes through neighbourhoods when the kernel can
 * ({@link movedBoundsThroughLists}): below it the dense pass (n·m·d at BLAS speed) costs less than
 * the exact own distances and norms in TypeScript (2·n·d) and the lists. At k = 20,000
 * (n = 200k, d = 128): m = 3,429 took 1.1–1.8 s through lists against 2.8 s dense, m = 864
 * 0.92–0.95 s against 0.85 s (load 2–3).
 */
export const MOVED_LISTS_MIN = 1_024
/** Centroid rows per `within` call of the moved lists. */
const MOVED_LIST_ROWS = 8_192
/** Mean moved centroids within reach per row above which the lists step aside for the dense pass. */
const MOVED_LIST_MAX_MEAN = 256

/** A moved-set plan: m centroids to measure, its estimated cost in distance evaluations, the points at risk. */
export interface MovedSetPlan {
  m: number
  cost: number
  atRisk: number
}

/**
 * Whether one full pass over all n points beats the plan: early on nearly every point fails,
 * and a contiguous pass (no bound checks, no gather) costs less than checking, gathering and
 * re-scanning almost all.
 */
export function fullPassBeats(plan: MovedSetPlan, n: number, k: number): boolean {
  return plan.atRisk >= FULL_PASS_AT_RISK * n && plan.cost > FULL_PASS_SHARE * n * k
}

/** The moved-set candidates: 0, powers of two below k, and `moving` (the centroids that moved at all), ascending. */
function candidateSizes(k: number, moving: number): number[] {
  const candidates: number[] = []
  for (let c = 0; c < k; c = c === 0 ? 2 : c * 2) candidates.push(c)
  if (moving < k && !candidates.includes(moving)) {
    candidates.push(moving)
    candidates.sort((a, b) => a - b)
  }
  return candidates
}

/**
 * Plans the moved set (see `HamerlyOptions.movedSet`) from the points at risk (those whose
 * bound fails with the largest drift), estimated on every `stride`-th point: m minimises one
 * moved-set pass over all points plus the re-scans of the points at risk whose slack is below the
 * (m + 1)-th largest drift, and one tightening for each other point at risk; candidates are 0,
 * powers of two below k, and the number of centroids that moved at all. The slack is an
 * estimate (lower bound − expected own distance), not a bound: a centroid drifting by δ in a
 * direction unrelated to the point (the typical case in many dimensions) moves from distance u
 * to about √(u² + δ²). Only the cost depends on the sample, never a label: a sample of
 * ~{@link PLAN_SAMPLE} points costs ~0.1 ms, where looking at every point cost 5–20 ms per
 * iteration at n = 100k.
 */
export function planMovedSet(
  bounds: HamerlyBounds,
  n: number,
  k: number,
  drift: Float64Array,
  byDrift: Int32Array,
  allOthers: (i: number) => number,
): MovedSetPlan {
  const { labels, upper, lower } = bounds
  // Every centroid that moved at all: the others then cost their bound nothing. Once a few
  // iterations in, most clusters keep their members and their centroids stay put (on blobs at
  // k = 1,000: 649, 369, 211, … of 1,000 move in iterations 4, 5, 6, …).
  let moving = 0
  while (moving < k && drift[byDrift[moving]] > 0) moving++
  const candidates = candidateSizes(k, moving)
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
 * The moved-set pass: the `moved` centroids (the m most-drifted) measured for every point
 * (contiguous rows; gathering the points at risk would cost more than the pass), each point
 * excluding its own. Returns each point's bound on the moved centroids other than its own,
 * which is at least its bound over all other centroids (`allOthers`).
 */
export async function movedSetBounds(
  points: Float32Array,
  n: number,
  d: number,
  labels: Int32Array,
  normsSq: Float64Array,
  kernel: DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestExcluding'>>,
  current: Float32Array,
  k: number,
  moved: Int32Array,
  allOthers: (i: number) => number,
): Promise<Float64Array> {
  const m = moved.length
  if (m >= MOVED_LISTS_MIN && kernel.within !== undefined && kernel.listDots !== undefined) {
    const bound = await movedBoundsThroughLists(
      points,
      n,
      d,
      labels,
      kernel as MovedListsKernel,
      current,
      k,
      moved,
      allOthers,
    )
    if (bound !== null) return bound
  }
  const movedRows = new Float32Array(m * d)
  // Each point excludes its own centroid where it is one of the moved (m: exclude none).
  const slot = new Int32Array(k).fill(m)
  for (let r = 0; r < m; r++) {
    movedRows.set(current.subarray(moved[r] * d, moved[r] * d + d), r * d)
    slot[moved[r]] = r
  }
  const exclude = new Int32Array(n)
  for (let i = 0; i < n; i++) exclude[i] = slot[labels[i]]
  const othersSq = await kernel.nearestExcluding(points.subarray(0, n * d), movedRows, exclude, normsSq, d)
  const maxMovedNormSq = maxRowNormSq(movedRows, m, d)
  const bound = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const measured = Math.sqrt(
      Math.max(0, othersSq[i] - kernel.distanceErrorBound(normsSq[i], maxMovedNormSq, d)),
    )
    bound[i] = Math.max(measured, allOthers(i))
  }
  return bound
}

type MovedListsKernel = ListDotsKernel & Required<Pick<DistanceMatrixKernel, 'within'>>

/**
 * Each in-play centroid's moved neighbours within twice its points' reach (exact own distances u),
 * by threshold (`within` over the moved rows, lowered by the error bound), and `outside[a]`, a
 * lower bound on ‖c_j − c_a‖ for every moved j left out. Null when the first rows hold more than
 * {@link MOVED_LIST_MAX_MEAN} on average (then the dense pass is cheaper).
 */
async function movedLists(
  kernel: MovedListsKernel,
  current: Float32Array,
  k: number,
  d: number,
  moved: Int32Array,
  movedRows: Float32Array,
  reach: Float64Array,
): Promise<{ lists: Int32Array[]; outside: Float64Array } | null> {
  const normsSq = rowNormsSq(current, k, d)
  const maxMovedNormSq = maxRowNormSq(movedRows, moved.length, d)
  const rows: number[] = []
  for (let a = 0; a < k; a++) if (reach[a] >= 0) rows.push(a)
  const lists: Int32Array[] = new Array(k)
  const outside = new Float64Array(k).fill(Number.POSITIVE_INFINITY)
  for (let from = 0; from < rows.length; from += MOVED_LIST_ROWS) {
    const part = rows.slice(from, from + MOVED_LIST_ROWS)
    const block = new Float32Array(part.length * d)
    const thresholds = new Float32Array(part.length)
    const bounds = new Float64Array(part.length)
    for (let r = 0; r < part.length; r++) {
      const a = part[r] as number
      block.set(current.subarray(a * d, a * d + d), r * d)
      bounds[r] = kernel.distanceErrorBound(normsSq[a] as number, maxMovedNormSq, d)
      thresholds[r] = reachThreshold(reach[a] as number, normsSq[a] as number, bounds[r] as number)
    }
    const got = await kernel.within(block, movedRows, thresholds, d)
    if (from === 0 && got.columns.length > MOVED_LIST_MAX_MEAN * part.length) return null
    for (let r = 0; r < part.length; r++) {
      const a = part[r] as number
      const list: number[] = []
      for (let e = got.rowStart[r] as number; e < (got.rowStart[r + 1] as number); e++)
        if (moved[got.columns[e] as number] !== a) list.push(got.columns[e] as number)
      lists[a] = Int32Array.from(list)
      outside[a] = outsideThreshold(thresholds[r] as number, normsSq[a] as number, bounds[r] as number)
    }
  }
  return { lists, outside }
}

const EMPTY = new Int32Array(0)

/**
 * The moved-set bounds through centroid neighbourhoods, for large moved sets: a moved centroid j
 * can come nearer to x than ‖c_j − c_a‖ − u only by the triangle inequality's slack, so each
 * in-play centroid a lists its moved neighbours within twice its points' reach ({@link movedLists},
 * k × m instead of n × m products), its points take their distances to that list as batched
 * products (`listDots`, float32 lowered by the error bound) and every moved centroid left out is
 * ≥ outside[a] − u. The same bound as {@link movedSetBounds}'s dense pass where a point has a
 * moved neighbour nearby, a weaker but valid one (still ≥ u) where it has none.
 */
async function movedBoundsThroughLists(
  points: Float32Array,
  n: number,
  d: number,
  labels: Int32Array,
  kernel: MovedListsKernel,
  current: Float32Array,
  k: number,
  moved: Int32Array,
  allOthers: (i: number) => number,
): Promise<Float64Array | null> {
  const m = moved.length
  const movedRows = new Float32Array(m * d)
  for (let r = 0; r < m; r++) movedRows.set(current.subarray(moved[r] * d, moved[r] * d + d), r * d)
  const own = new Float64Array(n)
  const pointNormsSq = new Float64Array(n)
  const reach = new Float64Array(k).fill(-1)
  const zero = new Float32Array(d)
  for (let i = 0; i < n; i++) {
    own[i] = Math.sqrt(rowDistanceSq(points, i, current, labels[i], d))
    pointNormsSq[i] = rowDistanceSq(points, i, zero, 0, d)
    if (own[i] > reach[labels[i]]) reach[labels[i]] = own[i]
  }
  const found = await movedLists(kernel, current, k, d, moved, movedRows, reach)
  if (found === null) return null
  const { lists, outside } = found
  const movedNormsSq = rowNormsSq(movedRows, m, d)
  const maxMovedNormSq = maxRowNormSq(movedRows, m, d)
  const bound = new Float64Array(n)
  await forEachListBlock(
    { points, d, centroids: movedRows, labels, indices: null, count: n },
    k,
    (a) => lists[a] ?? EMPTY,
    kernel,
    (block, order, dots, g, width, length) => {
      const list = lists[block.a] ?? EMPTY
      for (let p = 0; p < block.to - block.from; p++) {
        const i = order[block.from + p] as number
        const xn = pointNormsSq[i] as number
        const eb = kernel.distanceErrorBound(xn, maxMovedNormSq, d)
        let lowest = Math.max(0, ((outside[block.a] as number) - (own[i] as number)) * DOWN)
        for (let l = 0; l < list.length; l++) {
          const v =
            xn +
            (movedNormsSq[list[l] as number] as number) -
            2 * (dots[(g * length + l) * width + p] as number)
          const low = Math.sqrt(Math.max(0, v - eb)) * DOWN
          if (low < lowest) lowest = low
        }
        bound[i] = Math.max(lowest, allOthers(i))
      }
    },
  )
  return bound
}
