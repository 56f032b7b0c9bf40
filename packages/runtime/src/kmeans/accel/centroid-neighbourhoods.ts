import type { DistanceMatrixKernel, Within } from '../kernels/assign-kernel.ts'
import { BOUND_SLACK } from './accel-state.ts'
import { forEachDistanceRow, rowNormsSq } from './dense-pass.ts'

/** Centroid rows per `nearestM` call: its output (count entries a row) stays ~100 MB, not GBs. */
const LIST_BLOCK_ROWS = 8_192
/**
 * Rows per `within` call when many rows are fetched at once ({@link CentroidNeighbourhoods.fetch}):
 * with q blocks the upper block triangle is (q + 1) / 2q of the square (k = 20,000: q = 10, 0.55).
 */
const SYMMETRIC_BLOCK_ROWS = 2_048

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

type WithinKernel = DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'within'>>
type EitherKernel = DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'withinEither'>>

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
    if (this.useWithin && dense?.within) {
      const kernel = dense as WithinKernel
      return which.length > SYMMETRIC_BLOCK_ROWS && dense.withinEither
        ? this.fetchSymmetric(which, dense as EitherKernel)
        : this.fetchWithin(which, kernel)
    }
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
  private async fetchWithin(which: Int32Array, dense: WithinKernel): Promise<void> {
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

  /**
   * The lists of many centroids `which` at about half the products of {@link fetchWithin}: the
   * distance between two of them is computed once, in the upper block triangle (rows in blocks of
   * {@link SYMMETRIC_BLOCK_ROWS}, each against its own and later blocks, then every centroid not
   * asked for), and kept for both lists when it is within either radius ρ = 2·reach (the row's by
   * its threshold, the column's by `withinEither`'s column radii). A pair left out is beyond both
   * thresholds, so each list is complete to its radius and `outside` is as from `within`. Sorted by reach,
   * a column group's largest radius (what the kernel compares first) is near each member's.
   */
  private async fetchSymmetric(which: Int32Array, dense: EitherKernel): Promise<void> {
    const { centroids, k, d, normsSq, maxNormSq, reach } = this
    const rows = which.length
    // Columns: the rows by reach, then every other centroid.
    const order = new Int32Array(k)
    order.set(Array.from(which).sort((x, y) => (reach[x] as number) - (reach[y] as number)))
    const isRow = new Uint8Array(k)
    for (const a of which) isRow[a] = 1
    for (let j = 0, c = rows; j < k; j++) if (isRow[j] === 0) order[c++] = j
    const columns = new Float32Array(k * d)
    for (let c = 0; c < k; c++) columns.set(centroids.subarray(order[c] * d, order[c] * d + d), c * d)
    // Each row's threshold as `within` compares it (float32), and what it proves: every centroid
    // left out is ≥ `outside` away; a column's radius² is that plus the largest error bound, so a
    // pair left out by an earlier row is as far.
    const thresholds = new Float32Array(rows)
    const ebs = new Float64Array(rows)
    const outside = new Float64Array(rows)
    const columnRadiusSq = new Float64Array(k).fill(Number.NEGATIVE_INFINITY)
    const maxEb = dense.distanceErrorBound(maxNormSq, maxNormSq, d)
    for (let c = 0; c < rows; c++) {
      const a = order[c] as number
      ebs[c] = dense.distanceErrorBound(normsSq[a] as number, maxNormSq, d)
      thresholds[c] = reachThreshold(reach[a] as number, normsSq[a] as number, ebs[c] as number)
      outside[c] = outsideThreshold(thresholds[c] as number, normsSq[a] as number, ebs[c] as number)
      columnRadiusSq[c] = (thresholds[c] as number) + (normsSq[a] as number) - (ebs[c] as number) + maxEb
    }
    const found = new ListEntries(rows)
    for (let from = 0; from < rows; from += SYMMETRIC_BLOCK_ROWS) {
      const to = Math.min(rows, from + SYMMETRIC_BLOCK_ROWS)
      const got = await dense.withinEither(
        columns.subarray(from * d, to * d),
        columns.subarray(from * d, k * d),
        thresholds.subarray(from, to),
        columnRadiusSq.subarray(from, k),
        d,
      )
      for (let r = 0; r < to - from; r++) {
        const a = order[from + r] as number
        const base = (normsSq[a] as number) - (ebs[from + r] as number)
        for (let e = got.rowStart[r] as number; e < (got.rowStart[r + 1] as number); e++) {
          const c = from + (got.columns[e] as number)
          const j = order[c] as number
          if (j === a) continue
          const low = Math.sqrt(Math.max(0, (got.partial[e] as number) + base)) * DOWN
          found.push(from + r, j, low)
          // A later block's row never sees column a: the pair goes to its list from here.
          if (c >= to && c < rows) found.push(c, a, low)
        }
      }
    }
    found.forEachRow((c, js, ds, m) =>
      this.fromCandidates(order[c] as number, js, ds, m, outside[c] as number),
    )
  }

  /**
   * Centroid a's list from candidates (js, ds)[0, m) (in place): those nearer than `out`, every
   * centroid left out being ≥ `out` away, capped at `maxList`.
   */
  private fromCandidates(a: number, cj: Int32Array, cd: Float64Array, count: number, out: number): void {
    const { js, ds } = this
    let m = 0
    for (let e = 0; e < count; e++) {
      if (!((cd[e] as number) < out)) continue
      js[m] = cj[e] as number
      ds[m] = cd[e] as number
      m++
    }
    this.setCapped(a, m, out)
  }

  /** Centroid a's list from its entries below `threshold` (row r of `got`), capped at `maxList`. */
  private fromWithin(a: number, got: Within, r: number, threshold: number): void {
    const { js, ds, d } = this
    const normSq = this.normsSq[a] as number
    const eb = this.dense?.distanceErrorBound(normSq, this.maxNormSq, d) ?? 0
    const out = outsideThreshold(threshold, normSq, eb)
    let m = 0
    for (let e = got.rowStart[r] as number; e < (got.rowStart[r + 1] as number); e++) {
      const j = got.columns[e] as number
      if (j === a) continue
      js[m] = j
      ds[m] = Math.sqrt(Math.max(0, (got.partial[e] as number) + normSq - eb)) * DOWN
      m++
    }
    this.setCapped(a, m, out)
  }

  /** Centroid a's list from its full row of squared distances (within `eb`). */
  private fromRow(a: number, row: Float32Array | Float64Array, offset: number, eb: number): void {
    const { k, js, ds } = this
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
    const out = Math.sqrt(Math.max(0, outSq - eb)) * DOWN
    this.setCapped(a, m, out)
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

  /** {@link setList} of the `maxList` nearest collected entries; `out` lowered to the nearest dropped. */
  private setCapped(a: number, m: number, out: number): void {
    const { js, ds, maxList } = this
    if (m > maxList) {
      selectSmallest(ds, js, m, maxList)
      for (let p = maxList; p < m; p++) if (ds[p] < out) out = ds[p]
      m = maxList
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

/** Candidate list entries (row, centroid, lowered distance), grouped by row at the end. */
class ListEntries {
  private row = new Int32Array(1 << 16)
  private j = new Int32Array(1 << 16)
  private low = new Float64Array(1 << 16)
  private length = 0

  constructor(private readonly rows: number) {}

  push(row: number, j: number, low: number): void {
    if (this.length === this.row.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(2 * a.length)
        b.set(a)
        return b
      }
      this.row = grow(this.row)
      this.j = grow(this.j)
      this.low = grow(this.low)
    }
    this.row[this.length] = row
    this.j[this.length] = j
    this.low[this.length] = low
    this.length++
  }

  /** Each row's entries (a counting sort by row): visit(row, js, ds, m) with scratch arrays. */
  forEachRow(visit: (row: number, js: Int32Array, ds: Float64Array, m: number) => void): void {
    const start = new Int32Array(this.rows + 1)
    for (let e = 0; e < this.length; e++) start[(this.row[e] as number) + 1]++
    for (let r = 0; r < this.rows; r++) start[r + 1] += start[r] as number
    const next = start.slice(0, this.rows)
    const js = new Int32Array(this.length)
    const ds = new Float64Array(this.length)
    for (let e = 0; e < this.length; e++) {
      const p = next[this.row[e] as number]++ as number
      js[p] = this.j[e] as number
      ds[p] = this.low[e] as number
    }
    for (let r = 0; r < this.rows; r++) {
      const from = start[r] as number
      const to = start[r + 1] as number
      visit(r, js.subarray(from, to), ds.subarray(from, to), to - from)
    }
  }
}
