import { UsageError } from '../errors.ts'

/**
 * An application's communication over one step, N × N and sparse (row-major CSR): for each
 * entry, `volume` bytes and `messages` messages sent from rank `row` to rank `col[k]`. Ranks
 * never send to themselves here (self-traffic costs nothing in the α-β model).
 */
export interface CommMatrix {
  processes: number
  /** Row i's entries are `rowStart[i] … rowStart[i + 1] − 1`. */
  rowStart: Int32Array
  col: Int32Array
  volume: Float64Array
  messages: Float64Array
}

/** Accumulates sends into a {@link CommMatrix}: repeated (from, to) pairs add up. */
export class CommMatrixBuilder {
  private readonly rows: Map<number, [number, number]>[]

  constructor(readonly processes: number) {
    if (!Number.isInteger(processes) || processes < 1)
      throw new UsageError('BAD_PROCESSES', `processes must be a positive integer, got ${processes}`)
    this.rows = Array.from({ length: processes }, () => new Map())
  }

  /** Adds `messages` messages carrying `bytes` in total from `from` to `to` (self-sends are dropped). */
  add(from: number, to: number, bytes: number, messages = 1): this {
    const n = this.processes
    if (!(from >= 0 && from < n && to >= 0 && to < n))
      throw new UsageError('BAD_RANK', `send ${from} → ${to} is outside ranks 0 … ${n - 1}`)
    if (!(bytes >= 0) || !(messages >= 0) || !Number.isFinite(bytes) || !Number.isFinite(messages))
      throw new UsageError('BAD_VOLUME', `send ${from} → ${to}: bytes ${bytes}, messages ${messages}`)
    if (from === to || (bytes === 0 && messages === 0)) return this
    const row = this.rows[from]!
    const cell = row.get(to)
    if (cell) {
      cell[0] += bytes
      cell[1] += messages
    } else row.set(to, [bytes, messages])
    return this
  }

  build(): CommMatrix {
    const n = this.processes
    const rowStart = new Int32Array(n + 1)
    for (let i = 0; i < n; i++) rowStart[i + 1] = rowStart[i]! + this.rows[i]!.size
    const nnz = rowStart[n]!
    const col = new Int32Array(nnz)
    const volume = new Float64Array(nnz)
    const messages = new Float64Array(nnz)
    for (let i = 0; i < n; i++) {
      let k = rowStart[i]!
      for (const [j, [b, m]] of [...this.rows[i]!].sort((x, y) => x[0] - y[0])) {
        col[k] = j
        volume[k] = b
        messages[k] = m
        k++
      }
    }
    return { processes: n, rowStart, col, volume, messages }
  }
}

/** Dense row-major N × N copies of a matrix's volume and messages (for export and small tests). */
export function toDense(m: CommMatrix): { volume: Float64Array; messages: Float64Array } {
  const n = m.processes
  const volume = new Float64Array(n * n)
  const messages = new Float64Array(n * n)
  for (let i = 0; i < n; i++)
    for (let k = m.rowStart[i]!; k < m.rowStart[i + 1]!; k++) {
      volume[i * n + m.col[k]!] = m.volume[k]!
      messages[i * n + m.col[k]!] = m.messages[k]!
    }
  return { volume, messages }
}

/**
 * A matrix from dense row-major N × N volume (bytes) and message counts. Without `messages`,
 * every non-zero volume is one message. The diagonal is ignored.
 */
export function fromDense(n: number, volume: ArrayLike<number>, messages?: ArrayLike<number>): CommMatrix {
  if (volume.length !== n * n || (messages && messages.length !== n * n))
    throw new UsageError('BAD_MATRIX', `a communication matrix of ${n} ranks needs ${n} × ${n} entries`)
  const b = new CommMatrixBuilder(n)
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const v = volume[i * n + j]!
      const count = messages ? messages[i * n + j]! : v > 0 ? 1 : 0
      if (v !== 0 || count !== 0) b.add(i, j, v, count)
    }
  return b.build()
}

/** Total bytes and messages of a matrix. */
export function commTotals(m: CommMatrix): { bytes: number; messages: number } {
  let bytes = 0
  let messages = 0
  for (let k = 0; k < m.col.length; k++) {
    bytes += m.volume[k]!
    messages += m.messages[k]!
  }
  return { bytes, messages }
}

/**
 * Both directions of every communicating pair, per rank (CSR): for rank i and neighbour
 * `col[k]`, `outVolume/outMessages` go i → j and `inVolume/inMessages` j → i. Planners use it
 * to price a rank's placement against its neighbours' on asymmetric links.
 */
export interface NeighbourLists {
  rowStart: Int32Array
  col: Int32Array
  outVolume: Float64Array
  outMessages: Float64Array
  inVolume: Float64Array
  inMessages: Float64Array
}

/** The {@link NeighbourLists} of a matrix. */
export function neighbourLists(m: CommMatrix): NeighbourLists {
  const n = m.processes
  // Count entries of the symmetrised pattern: i's out-entries plus in-entries with no matching out-entry.
  const rowsOut = (i: number) => m.col.subarray(m.rowStart[i]!, m.rowStart[i + 1]!)
  const hasOut = (i: number, j: number) => binarySearch(rowsOut(i), j) >= 0
  const degree = new Int32Array(n)
  for (let i = 0; i < n; i++)
    for (let k = m.rowStart[i]!; k < m.rowStart[i + 1]!; k++) {
      const j = m.col[k]!
      degree[i]!++
      if (!hasOut(j, i)) degree[j]!++
    }
  const rowStart = new Int32Array(n + 1)
  for (let i = 0; i < n; i++) rowStart[i + 1] = rowStart[i]! + degree[i]!
  const nnz = rowStart[n]!
  const out: NeighbourLists = {
    rowStart,
    col: new Int32Array(nnz),
    outVolume: new Float64Array(nnz),
    outMessages: new Float64Array(nnz),
    inVolume: new Float64Array(nnz),
    inMessages: new Float64Array(nnz),
  }
  const fill = rowStart.slice(0, n)
  // Each (i, j) reaches `append` once: out-entries are unique, and an in-entry is appended only
  // when there is no out-entry for it. Out-entries come first, in column order, so `outIndex`
  // can binary-search them.
  const append = (i: number, j: number): number => {
    const k = fill[i]!++
    out.col[k] = j
    return k
  }
  for (let i = 0; i < n; i++)
    for (let k = m.rowStart[i]!; k < m.rowStart[i + 1]!; k++) {
      const s = append(i, m.col[k]!)
      out.outVolume[s] = m.volume[k]!
      out.outMessages[s] = m.messages[k]!
    }
  for (let i = 0; i < n; i++)
    for (let k = m.rowStart[i]!; k < m.rowStart[i + 1]!; k++) {
      const j = m.col[k]!
      const outAt = binarySearch(rowsOut(j), i)
      const s = outAt >= 0 ? rowStart[j]! + outAt : append(j, i)
      out.inVolume[s] = m.volume[k]!
      out.inMessages[s] = m.messages[k]!
    }
  return out
}

function binarySearch(sorted: Int32Array, x: number): number {
  let lo = 0
  let hi = sorted.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = sorted[mid]!
    if (v === x) return mid
    if (v < x) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}
