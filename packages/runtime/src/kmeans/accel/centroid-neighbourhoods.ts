import type { DistanceMatrixKernel, Within } from '../kernels/assign-kernel.ts'
import { BOUND_SLACK } from './accel-state.ts'
import { forEachDistanceRow, rowNormsSq } from './dense-pass.ts'

/** Centroid rows per `nearestM` call: its output (count entries a row) stays ~100 MB, not GBs. */
const LIST_BLOCK_ROWS = 8_192

const UP = 1 + BOUND_SLACK
const DOWN = 1 - BOUND_SLACK

/**
 * The `within` threshold on ‖c_j‖² − 2c_a·c_j that keeps every centroid j within 2·reach of c_a
 * (centroid a at ‖c_a‖² = `normSq`, error bound `eb`), nudged up by ≥ 8 float32 ulps so that
 * rounding never lowers it below that radius (else the farthest point of each centroid would
 * miss its cut and go to the dense re-scan).
 */
export function reachThreshold(reach: number, normSq: number, eb: number): number {
  const radius = (2 * reach * UP) / DOWN
  const threshold = radius * radius + eb - normSq
  return threshold + Math.abs(threshold) * 2 ** -20
}

/** A lower bound on ‖c_j − c_a‖ for every centroid j left out by a `within` threshold (as stored). */
export function outsideThreshold(threshold: number, normSq: number, eb: number): number {
  return Math.sqrt(Math.max(0, threshold + normSq - eb)) * DOWN
}

/** One centroid's neighbours within reach, ascending by (lowered) distance. */
export interface NeighbourList {
  j: Int32Array
  dist: Float64Array
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

/**
 * Per centroid in play, its nearest other centroids within reach: twice the largest distance
 * `reach[a]` of its points to it (beyond that no centroid can win for any of them), at most
 * `maxList`, sorted by distance lowered by the kernel's error bound (so bounds stay valid in
 * float32); and `outside[a]`, the smallest (lowered) distance to a centroid left out.
 */
export class CentroidNeighbourhoods {
  readonly lists: NeighbourList[]
  readonly outside: Float64Array
  /** Entries fetched per row by `nearestM` (its list, the row itself, one more for the bound outside). */
  keep: number
  /**
   * Fetch by threshold (the kernel's `within`: every neighbour within the row's radius, no TopK)
   * when the kernel has it; the caller turns it off when rows hold too many (see `entriesPerRow`).
   */
  useWithin: boolean
  /** Entries within the radius per row fetched by `within` so far (before the `maxList` cap). */
  private withinEntries = 0
  private withinRows = 0
  private readonly js: Int32Array
  private readonly ds: Float64Array
  private readonly normsSq: Float64Array
  private readonly maxNormSq: number

  constructor(
    private readonly centroids: Float32Array,
    private readonly k: number,
    private readonly d: number,
    private readonly reach: Float64Array,
    private readonly maxList: number,
    private readonly dense: DistanceMatrixKernel | undefined,
  ) {
    this.lists = new Array(k)
    this.outside = new Float64Array(k).fill(Number.POSITIVE_INFINITY)
    this.js = new Int32Array(k)
    this.ds = new Float64Array(k)
    this.keep = Math.min(k, maxList + 2)
    this.useWithin = dense?.within !== undefined
    // With a kernel that returns only each row's nearest (ORT's TopK), the k × k block never
    // reaches JavaScript: at k = 20,000 the full rows cost ~5.5 s there, 9 GMAC/s.
    this.normsSq = dense?.nearestM || dense?.within ? rowNormsSq(centroids, k, d) : new Float64Array(0)
    let maxNormSq = 0
    for (const v of this.normsSq) if (v > maxNormSq) maxNormSq = v
    this.maxNormSq = maxNormSq
  }

  /** Mean entries within the radius per row fetched by `within` (0 before any). */
  get entriesPerRow(): number {
    return this.withinRows === 0 ? 0 : this.withinEntries / this.withinRows
  }

  /**
   * Fetches the lists of the centroids `which`: by threshold through `within`, else their rows'
   * nearest through `nearestM`, else full rows.
   */
  async fetch(which: Int32Array): Promise<void> {
    const { centroids, k, d, dense } = this
    if (this.useWithin && dense?.within)
      return this.fetchWithin(
        which,
        dense as DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'within'>>,
      )
    const nearestM = dense?.nearestM?.bind(dense)
    if (!nearestM || !dense) {
      await forEachDistanceRow(centroids, k, d, centroids, k, which, dense, (a, row, offset, eb) =>
        this.fromRow(a, row, offset, eb),
      )
      return
    }
    for (let from = 0; from < which.length; from += LIST_BLOCK_ROWS) {
      const part = which.subarray(from, Math.min(which.length, from + LIST_BLOCK_ROWS))
      const block = new Float32Array(part.length * d)
      for (let r = 0; r < part.length; r++)
        block.set(centroids.subarray((part[r] as number) * d, (part[r] as number) * d + d), r * d)
      const got = await nearestM(block, centroids.subarray(0, k * d), this.keep, d)
      for (let r = 0; r < part.length; r++) {
        const a = part[r] as number
        const eb = dense.distanceErrorBound(this.normsSq[a] as number, this.maxNormSq, d)
        this.fromNearest(a, got.indices, got.distancesSq, r * this.keep, this.keep, eb)
      }
    }
  }

  /**
   * Each centroid's neighbours within its radius 2·reach (compared on ‖c_j‖² − 2c_a·c_j against
   * radius² + eb − ‖c_a‖²): every centroid left out is at least that threshold's distance away.
   */
  private async fetchWithin(
    which: Int32Array,
    dense: DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'within'>>,
  ): Promise<void> {
    const { centroids, k, d } = this
    for (let from = 0; from < which.length; from += LIST_BLOCK_ROWS) {
      const part = which.subarray(from, Math.min(which.length, from + LIST_BLOCK_ROWS))
      const block = new Float32Array(part.length * d)
      const thresholds = new Float32Array(part.length)
      for (let r = 0; r < part.length; r++) {
        const a = part[r] as number
        block.set(centroids.subarray(a * d, a * d + d), r * d)
        const eb = dense.distanceErrorBound(this.normsSq[a] as number, this.maxNormSq, d)
        thresholds[r] = reachThreshold(this.reach[a] as number, this.normsSq[a] as number, eb)
      }
      const got = await dense.within(block, centroids.subarray(0, k * d), thresholds, d)
      this.withinRows += part.length
      this.withinEntries += got.columns.length
      for (let r = 0; r < part.length; r++)
        this.fromWithin(part[r] as number, got, r, thresholds[r] as number)
    }
  }

  /** Centroid a's list from its entries below `threshold` (row r of `got`), capped at `maxList`. */
  private fromWithin(a: number, got: Within, r: number, threshold: number): void {
    const { js, ds, maxList, d } = this
    const normSq = this.normsSq[a] as number
    const eb = this.dense?.distanceErrorBound(normSq, this.maxNormSq, d) ?? 0
    let out = outsideThreshold(threshold, normSq, eb)
    let m = 0
    for (let e = got.rowStart[r] as number; e < (got.rowStart[r + 1] as number); e++) {
      const j = got.columns[e] as number
      if (j === a) continue
      js[m] = j
      ds[m] = Math.sqrt(Math.max(0, (got.partial[e] as number) + normSq - eb)) * DOWN
      m++
    }
    if (m > maxList) {
      selectSmallest(ds, js, m, maxList)
      for (let p = maxList; p < m; p++) if (ds[p] < out) out = ds[p]
      m = maxList
    }
    this.setList(a, m, out)
  }

  /** Centroid a's list from its full row of squared distances (within `eb`). */
  private fromRow(a: number, row: Float32Array | Float64Array, offset: number, eb: number): void {
    const { k, js, ds, maxList } = this
    // Compared squared (one sqrt per kept entry, not per entry): low = √(value − eb)·DOWN ≤ radius.
    const radius = 2 * this.reach[a] * UP
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
    this.setList(a, m, out)
  }

  /** Centroid a's list from its row's `count` nearest (ascending): every centroid not returned is ≥ the last. */
  private fromNearest(
    a: number,
    indicesOut: Int32Array,
    valuesOut: Float32Array,
    offset: number,
    count: number,
    eb: number,
  ): void {
    const { k, js, ds, maxList } = this
    const radius = 2 * this.reach[a] * UP
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
    this.setList(a, m, out)
  }

  /** Stores the first m collected entries as a's list, sorted (lowered values can tie or swap by index only). */
  private setList(a: number, m: number, out: number): void {
    const { js, ds } = this
    this.outside[a] = out
    // Insertion sort in place by (distance, index): lists are short (~44 at k = 20,000, ≤ k/64),
    // and sorting an index array through a closure cost ~0.3 s over 20,000 lists.
    for (let p = 1; p < m; p++) {
      const dp = ds[p] as number
      const jp = js[p] as number
      let q = p - 1
      while (q >= 0 && ((ds[q] as number) > dp || ((ds[q] as number) === dp && (js[q] as number) > jp))) {
        ds[q + 1] = ds[q] as number
        js[q + 1] = js[q] as number
        q--
      }
      ds[q + 1] = dp
      js[q + 1] = jp
    }
    this.lists[a] = { j: js.slice(0, m), dist: ds.slice(0, m) }
  }
}
