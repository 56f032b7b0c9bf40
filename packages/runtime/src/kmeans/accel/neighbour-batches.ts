import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { BOUND_SLACK } from './accel-state.ts'
import type { CentroidNeighbourhoods, NeighbourList } from './centroid-neighbourhoods.ts'
import { rowNormsSq } from './dense-pass.ts'

/** What a neighbourhood re-scan decided for one point: its exact nearest and a bound on all others. */
export type NeighbourSettle = (i: number, best: number, bestDist: number, othersLower: number) => void

/** A dense kernel with the batched small products of {@link DistanceMatrixKernel.listDots}. */
export type ListDotsKernel = DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'listDots'>>

/** Points (the listed indices, all n when null) with their labels, against rows of `centroids`. */
export interface LabelledRows {
  points: Float32Array
  d: number
  centroids: Float32Array
  labels: Int32Array
  indices: Int32Array | null
  count: number
}

/** The rows to settle, with their exact own distances² (by position in the list). */
export interface ListRows extends LabelledRows {
  ownSq: Float64Array
}

/** Points of one centroid per product block: larger groups are split (the list is gathered once per block). */
const MAX_GROUP_POINTS = 32
/** Floats of gathered centroid rows (G · L · d) per kernel call: ~32 MiB, next to the ~1 ms a call costs. */
const BATCH_FLOATS = 1 << 23

const UP = 1 + BOUND_SLACK
const DOWN = 1 - BOUND_SLACK

/** One block: up to {@link MAX_GROUP_POINTS} rows (positions in the row list) sharing centroid a. */
export interface Block {
  a: number
  from: number
  to: number
  /** Points padded to a power of two (the batch's P). */
  width: number
}

/**
 * The blocks of the rows grouped by label (`order` = row positions sorted by label), sorted by
 * padded width and list length so a batch pads little.
 */
function blocksOf(rows: LabelledRows, listOf: (a: number) => Int32Array, order: Int32Array): Block[] {
  const { labels, indices, count } = rows
  const blocks: Block[] = []
  let start = 0
  while (start < count) {
    const a = labels[indices === null ? order[start] : indices[order[start]]]
    let end = start + 1
    while (end < count && labels[indices === null ? order[end] : indices[order[end]]] === a) end++
    for (let from = start; from < end; from += MAX_GROUP_POINTS) {
      const to = Math.min(end, from + MAX_GROUP_POINTS)
      let width = 1
      while (width < to - from) width *= 2
      blocks.push({ a, from, to, width })
    }
    start = end
  }
  const length = (b: Block) => listOf(b.a).length
  return blocks.sort((x, y) => x.width - y.width || length(x) - length(y))
}

/** Row positions sorted by label (counting sort). */
function byLabel(rows: LabelledRows, k: number): Int32Array {
  const { labels, indices, count } = rows
  const start = new Int32Array(k + 1)
  for (let r = 0; r < count; r++) start[labels[indices === null ? r : indices[r]] + 1]++
  for (let a = 0; a < k; a++) start[a + 1] += start[a]
  const order = new Int32Array(count)
  for (let r = 0; r < count; r++) order[start[labels[indices === null ? r : indices[r]]]++] = r
  return order
}

/** One batch's products: block g's point p against its list entry l is dots[(g·length + l)·width + p]. */
export type BlockVisitor = (
  block: Block,
  order: Int32Array,
  dots: Float32Array,
  g: number,
  width: number,
  length: number,
) => void

/**
 * Groups the rows by label into blocks of ≤ {@link MAX_GROUP_POINTS} points sharing a list of
 * `centroids` rows (`listOf(a)`), batches blocks of equal padded width up to
 * {@link BATCH_FLOATS} gathered floats, and hands each block's products to `visit`.
 */
export async function forEachListBlock(
  rows: LabelledRows,
  k: number,
  listOf: (a: number) => Int32Array,
  kernel: ListDotsKernel,
  visit: BlockVisitor,
): Promise<void> {
  const { points, d, centroids, indices } = rows
  const order = byLabel(rows, k)
  const blocks = blocksOf(rows, listOf, order)
  const n = points.length / d
  let b = 0
  while (b < blocks.length) {
    const width = (blocks[b] as Block).width
    let end = b
    let length = 1
    while (end < blocks.length && (blocks[end] as Block).width === width) {
      const l = Math.max(length, listOf((blocks[end] as Block).a).length)
      if (end > b && (end - b + 1) * l * d > BATCH_FLOATS) break
      length = l
      end++
    }
    const batch = blocks.slice(b, end)
    const pointIndex = new Int32Array(batch.length * width)
    // Padding entries name row 0; their products are never read.
    const listIndex = new Int32Array(batch.length * length)
    for (let g = 0; g < batch.length; g++) {
      const { a, from, to } = batch[g] as Block
      for (let p = 0; p < width; p++) {
        const r = order[from + Math.min(p, to - from - 1)] as number
        pointIndex[g * width + p] = indices === null ? r : (indices[r] as number)
      }
      listIndex.set(listOf(a), g * length)
    }
    const dots = await kernel.listDots(
      points.subarray(0, n * d),
      centroids,
      pointIndex,
      listIndex,
      batch.length,
      d,
    )
    for (let g = 0; g < batch.length; g++) visit(batch[g] as Block, order, dots, g, width, length)
    b = end
  }
}

/**
 * {@link settleThroughLists}'s work as batched products: the points sharing a centroid a share
 * its neighbour list, so their distances to it are one small block (points × list), and many
 * blocks go to the kernel in one call ({@link DistanceMatrixKernel.listDots}). Each point's
 * float32 distances (norms added in float64) only shortlist: the neighbours whose lower bound
 * (value − error bound) is ≤ the smallest upper bound are evaluated exactly with
 * {@link rowDistanceSq} (ties to the lowest index), every other one is bounded by its value −
 * error bound (or ‖c_j − c_a‖ − u, if larger), and a centroid outside the list by
 * outside[a] − u; a point whose list ends before that cut is left unsettled, as before.
 */
export async function settleThroughBatches(
  rows: ListRows,
  k: number,
  hoods: CentroidNeighbourhoods,
  kernel: ListDotsKernel,
  settle: NeighbourSettle,
): Promise<{ evaluated: number; unsettled: Int32Array }> {
  const { d, centroids } = rows
  const centroidNormsSq = rowNormsSq(centroids, k, d)
  let maxNormSq = 0
  for (const v of centroidNormsSq) if (v > maxNormSq) maxNormSq = v
  const scan = new BlockScan(rows, hoods, centroidNormsSq, maxNormSq, kernel, settle)
  await forEachListBlock(
    { ...rows, centroids: centroids.subarray(0, k * d) },
    k,
    (a) => (hoods.lists[a] as NeighbourList).j,
    kernel,
    (block, order, dots, g, width, length) => scan.block(block, order, dots, g, width, length),
  )
  return { evaluated: scan.evaluated, unsettled: Int32Array.from(scan.unsettled) }
}

/** Resolves the points of one block from its dot products (see {@link settleThroughBatches}). */
class BlockScan {
  evaluated: number
  readonly unsettled: number[] = []
  private readonly near = new NearestSoFar()

  constructor(
    private readonly rows: ListRows,
    private readonly hoods: CentroidNeighbourhoods,
    private readonly centroidNormsSq: Float64Array,
    private readonly maxNormSq: number,
    private readonly kernel: ListDotsKernel,
    private readonly settle: NeighbourSettle,
  ) {
    this.evaluated = rows.count
  }

  block(block: Block, order: Int32Array, dots: Float32Array, g: number, width: number, length: number): void {
    const { points, d, centroids, indices, ownSq } = this.rows
    const { a, from, to } = block
    const list = this.hoods.lists[a] as NeighbourList
    const m = list.j.length
    const cn = this.centroidNormsSq
    for (let p = 0; p < to - from; p++) {
      const r = order[from + p] as number
      const i = indices === null ? r : (indices[r] as number)
      const xn = pointNormSq(points, i, d)
      const eb = this.kernel.distanceErrorBound(xn, this.maxNormSq, d)
      const base = g * length * width + p
      const ownSqR = ownSq[r] as number
      const u = Math.sqrt(ownSqR)
      // The smallest upper bound on the point's nearest: its own exact distance or any list value + eb.
      let minUp = ownSqR
      for (let l = 0; l < m; l++) {
        const up = xn + cn[list.j[l] as number] - 2 * (dots[base + l * width] as number) + eb
        if (up < minUp) minUp = up
      }
      const near = this.near.start(a, ownSqR)
      this.evaluated += m
      for (let l = 0; l < m; l++) {
        const j = list.j[l] as number
        const low = xn + cn[j] - 2 * (dots[base + l * width] as number) - eb
        if (low > minUp) {
          // Never evaluated: bounded by its float32 value or by the triangle inequality.
          const bound = Math.max(Math.sqrt(Math.max(0, low)), (list.dist[l] as number) - u) * DOWN
          if (bound < near.second) near.second = bound
          continue
        }
        near.offer(j, rowDistanceSq(points, i, centroids, j, d))
        this.evaluated++
      }
      // Every centroid outside the list is ≥ outside[a] − u away: the list settles the point only past it.
      const rest = (this.hoods.outside[a] as number) - u
      if (!(rest > near.bestDist * UP)) {
        this.unsettled.push(i)
        continue
      }
      this.settle(i, near.best, near.bestDist, Math.max(0, Math.min(near.second, rest * DOWN)))
    }
  }
}

/**
 * One point's best exact squared distance so far (ties to the lowest index, as the reference
 * kernel) and the smallest exact distance among the other centroids evaluated (the displaced
 * best included): what its bound on all other centroids starts from.
 */
export class NearestSoFar {
  best = 0
  bestSq = 0
  bestDist = 0
  second = Number.POSITIVE_INFINITY

  /** Starts from centroid a at exact squared distance `ownSq`. */
  start(a: number, ownSq: number): this {
    this.best = a
    this.bestSq = ownSq
    this.bestDist = Math.sqrt(ownSq)
    this.second = Number.POSITIVE_INFINITY
    return this
  }

  /** Centroid j at exact squared distance dj. */
  offer(j: number, dj: number): void {
    if (dj < this.bestSq || (dj === this.bestSq && j < this.best)) {
      if (this.bestDist < this.second) this.second = this.bestDist
      this.best = j
      this.bestSq = dj
      this.bestDist = Math.sqrt(dj)
    } else {
      const v = Math.sqrt(dj)
      if (v < this.second) this.second = v
    }
  }
}

/** ‖x_i‖² in float64. */
function pointNormSq(points: Float32Array, i: number, d: number): number {
  let s = 0
  const base = i * d
  for (let t = 0; t < d; t++) s += points[base + t] * points[base + t]
  return s
}
