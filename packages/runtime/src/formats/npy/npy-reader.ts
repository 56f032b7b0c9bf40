import { open } from 'node:fs/promises'
import type { VectorDtype } from '@codebook/shared'
import type { ByteSource } from '../byte-source.ts'
import { statInput } from '../byte-source.ts'
import { formatError } from '../error-codes.ts'
import { MAX_IN_MEMORY_TRANSPOSE_BYTES } from '../limits.ts'
import type { RowBatch, VectorReader } from '../row-batch.ts'
import { checkFinite } from '../validate.ts'
import { MAX_VECS_DIMENSION } from '../vecs.ts'
import { decodeElements, elementNotes, type NpyElement, npyElement } from './npy-element.ts'
import {
  ITEM_BYTES,
  NPY_PREAMBLE_BYTES,
  type NpyDtype,
  npyHeaderSize,
  parseNpyDict,
  parseNpyHeader,
} from './npy-header.ts'

/** Rows per batch aim at about this many bytes, whatever d is. */
const BATCH_BYTES = 1 << 20

/**
 * Rows per Fortran-order block aim at this many bytes: each block costs d reads (one per
 * column), so larger blocks mean longer reads. 8 MiB keeps peak memory near 3 blocks.
 */
const FORTRAN_BLOCK_BYTES = 8 << 20

/** Column reads of one block kept in flight at once (libuv runs 4 file reads in parallel). */
const READS_IN_FLIGHT = 8

/** Widest row accepted from a source .npy (the .vecs bound): a row is buffered whole while streaming. */
const MAX_NPY_COLUMNS = MAX_VECS_DIMENSION

/** A source .npy's header as the streaming reader needs it. */
interface SourceLayout {
  n: number
  d: number
  headerBytes: number
  el: NpyElement
  /** Column-major data with n > 1 and d > 1 (a single row or column is the same in both orders). */
  fortran: boolean
}

/**
 * Streaming reader for a 2-D .npy (possibly gzipped): float32 and uint8 as stored, float64
 * narrowed to float32, big-endian byte-swapped, Fortran order transposed into rows (from disk in
 * row blocks for a plain file; in memory up to `MAX_IN_MEMORY_TRANSPOSE_BYTES` for gzip).
 * Validates header, length and finiteness; `notes` says what was converted.
 */
export function npyReader(src: ByteSource): VectorReader {
  let dtype: VectorDtype = 'float32'
  const notes: string[] = []
  let fortranBytesRead: number | null = null
  return {
    file: src.file,
    format: 'npy',
    dtype: () => dtype,
    hasIds: false,
    totalBytes: src.totalBytes,
    bytesRead: () => fortranBytesRead ?? src.bytesRead(),
    notes,
    batches: async function* () {
      const file = src.file
      const it = src.chunks[Symbol.asyncIterator]()
      try {
        const { layout, rest } = await readSourceHeader(it, file)
        dtype = layout.el.dtype
        notes.push(...elementNotes(layout.el))
        if (!layout.fortran) {
          yield* cOrderBatches(it, rest, layout, file)
          return
        }
        notes.push('transposed from Fortran order')
        if (src.gzip) {
          const data = await collectFortranData(it, rest, layout, file)
          yield* transposedBatches(layout, file, (off, len, into, at) => {
            data.copy(into, at, off, off + len)
          })
          return
        }
        // A plain file is read out of order from disk, a block of rows at a time: no stream needed.
        await it.return?.()
        fortranBytesRead = layout.headerBytes
        yield* fortranFromDisk(layout, file, (bytes) => {
          fortranBytesRead = (fortranBytesRead ?? 0) + bytes
        })
      } finally {
        await it.return?.()
      }
    },
  }
}

/** Reads chunks until the whole header is in; returns the layout and the data bytes already read. */
async function readSourceHeader(
  it: AsyncIterator<Buffer>,
  file: string,
): Promise<{ layout: SourceLayout; rest: Buffer }> {
  let pending: Buffer = Buffer.alloc(0)
  while (pending.length < NPY_PREAMBLE_BYTES || pending.length < npyHeaderSize(pending, file)) {
    const r = await it.next()
    if (r.done) {
      if (pending.length >= 10) npyHeaderSize(pending, file)
      throw formatError(
        pending.length === 0 ? 'EMPTY_INPUT' : 'BAD_HEADER',
        pending.length === 0 ? 'file is empty' : 'file ends inside the .npy header',
        { file },
      )
    }
    pending = pending.length > 0 ? Buffer.concat([pending, r.value]) : r.value
  }
  const dict = parseNpyDict(pending, file)
  const el = npyElement(dict.descr, file)
  const { n, d, headerBytes } = dict
  if (n === 0) throw formatError('EMPTY_INPUT', 'shape has n = 0 rows', { file })
  if (d === 0) throw formatError('BAD_HEADER', 'shape has d = 0 columns', { file })
  if (d > MAX_NPY_COLUMNS)
    throw formatError('BAD_HEADER', `shape has d = ${d} columns, more than ${MAX_NPY_COLUMNS}`, { file })
  const fortran = dict.fortranOrder && n > 1 && d > 1
  return { layout: { n, d, headerBytes, el, fortran }, rest: pending.subarray(headerBytes) }
}

/** Rows of a C-order array as they stream in; only an incomplete row is ever carried over. */
async function* cOrderBatches(
  it: AsyncIterator<Buffer>,
  first: Buffer,
  layout: SourceLayout,
  file: string,
): AsyncGenerator<RowBatch> {
  const { n, d, el } = layout
  const rowBytes = d * el.itemBytes
  const batchRows = Math.max(1, Math.floor(BATCH_BYTES / rowBytes))
  let pending = first
  let rowsDone = 0
  for (;;) {
    while (pending.length >= rowBytes && rowsDone < n) {
      const rows = Math.min(n - rowsDone, Math.floor(pending.length / rowBytes), batchRows)
      const at = rowsDone
      const values = decodeElements(
        pending.subarray(0, rows * rowBytes),
        el,
        file,
        (i) => at + Math.floor(i / d),
      )
      if (values instanceof Float32Array) checkFinite(values, d, at, file)
      pending = pending.subarray(rows * rowBytes)
      rowsDone += rows
      yield { rows, firstRow: at, d, values, ids: null, lines: null }
    }
    if (rowsDone === n && pending.length > 0) throw dataPastEnd(layout, file)
    // Keep only the incomplete row, copied, so the chunk it came from can be freed.
    if (pending.length > 0) pending = Buffer.from(pending)
    const r = await it.next()
    if (r.done) break
    pending = pending.length > 0 ? Buffer.concat([pending, r.value]) : r.value
  }
  if (rowsDone < n) {
    throw formatError('TRUNCATED_BINARY', `file ends inside row ${rowsDone} of ${n} declared by the header`, {
      file,
      row: rowsDone,
    })
  }
}

function dataPastEnd(layout: SourceLayout, file: string): Error {
  return formatError(
    'BAD_HEADER',
    `data continues past the ${layout.n} × ${layout.d} array the header declares`,
    { file },
  )
}

/** TRUNCATED_BINARY for a Fortran-order array holding only its first `elements` elements, at the first row that misses one. */
function fortranTruncated(layout: SourceLayout, elements: number, file: string): Error {
  const { n, d } = layout
  const column = Math.floor(elements / n)
  // Every row misses the last column unless the cut falls inside it.
  const row = column < d - 1 ? 0 : elements - (d - 1) * n
  return formatError(
    'TRUNCATED_BINARY',
    `file ends inside column ${column} of the ${n} × ${d} Fortran-order array the header declares`,
    { file, row },
  )
}

/** The whole data of a gzipped Fortran-order array in memory (one exact-size buffer), or TRANSPOSE_TOO_LARGE. */
async function collectFortranData(
  it: AsyncIterator<Buffer>,
  first: Buffer,
  layout: SourceLayout,
  file: string,
): Promise<Buffer> {
  const total = layout.n * layout.d * layout.el.itemBytes
  if (total > MAX_IN_MEMORY_TRANSPOSE_BYTES)
    throw formatError(
      'TRANSPOSE_TOO_LARGE',
      `a gzipped Fortran-order array of ${total} bytes is over the ${MAX_IN_MEMORY_TRANSPOSE_BYTES}-byte in-memory limit; decompress it first (a plain file of any size is transposed from disk)`,
      { file },
    )
  const data = Buffer.allocUnsafe(total)
  let filled = 0
  let chunk: Buffer = first
  for (;;) {
    if (filled + chunk.length > total) throw dataPastEnd(layout, file)
    chunk.copy(data, filled)
    filled += chunk.length
    const r = await it.next()
    if (r.done) break
    chunk = r.value
  }
  if (filled < total) throw fortranTruncated(layout, Math.floor(filled / layout.el.itemBytes), file)
  return data
}

/** A plain Fortran-order file, read a block of rows at a time (d reads per block) after checking its length. */
async function* fortranFromDisk(
  layout: SourceLayout,
  file: string,
  onBytes: (bytes: number) => void,
): AsyncGenerator<RowBatch> {
  const size = await statInput(file)
  const dataBytes = layout.n * layout.d * layout.el.itemBytes
  if (size - layout.headerBytes < dataBytes)
    throw fortranTruncated(layout, Math.floor((size - layout.headerBytes) / layout.el.itemBytes), file)
  if (size - layout.headerBytes > dataBytes) throw dataPastEnd(layout, file)
  const fh = await open(file, 'r')
  try {
    yield* transposedBatches(
      layout,
      file,
      async (off, len, into, at) => {
        const { bytesRead } = await fh.read(into, at, len, layout.headerBytes + off)
        if (bytesRead < len) throw formatError('TRUNCATED_BINARY', 'file shrank while reading', { file })
      },
      onBytes,
    )
  } finally {
    await fh.close()
  }
}

/** Copies `len` data bytes starting `off` bytes into the array's data to `into[at…]`. */
type ReadData = (off: number, len: number, into: Buffer, at: number) => void | Promise<void>

/**
 * Turns a column-major array into row batches: per block of rows, each column's run of the
 * block is fetched (contiguous in Fortran order), decoded, and transposed into rows.
 */
async function* transposedBatches(
  layout: SourceLayout,
  file: string,
  read: ReadData,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<RowBatch> {
  const { n, d, el } = layout
  const item = el.itemBytes
  const blockRows = Math.max(1, Math.min(n, Math.floor(FORTRAN_BLOCK_BYTES / (d * item))))
  const columns = Buffer.allocUnsafe(blockRows * d * item)
  for (let r0 = 0; r0 < n; r0 += blockRows) {
    const rows = Math.min(blockRows, n - r0)
    for (let j0 = 0; j0 < d; j0 += READS_IN_FLIGHT) {
      const reads: Array<void | Promise<void>> = []
      for (let j = j0; j < Math.min(d, j0 + READS_IN_FLIGHT); j++)
        reads.push(read((j * n + r0) * item, rows * item, columns, j * rows * item))
      await Promise.all(reads)
    }
    const byColumn = decodeElements(columns.subarray(0, rows * d * item), el, file, (i) => r0 + (i % rows))
    const values = byColumn instanceof Float32Array ? new Float32Array(rows * d) : new Uint8Array(rows * d)
    transpose(byColumn, values, rows, d)
    if (values instanceof Float32Array) checkFinite(values, d, r0, file)
    onBytes?.(rows * d * item)
    yield { rows, firstRow: r0, d, values, ids: null, lines: null }
  }
}

/** Side of the square tiles `transpose` moves: a tile's reads and writes both stay in cache. */
const TILE = 32

/** Writes the column-major `rows` × `d` matrix `from` into `to` in row-major order, tile by tile. */
function transpose(
  from: Float32Array | Uint8Array,
  to: Float32Array | Uint8Array,
  rows: number,
  d: number,
): void {
  for (let j0 = 0; j0 < d; j0 += TILE) {
    const j1 = Math.min(d, j0 + TILE)
    for (let r0 = 0; r0 < rows; r0 += TILE) {
      const r1 = Math.min(rows, r0 + TILE)
      for (let r = r0; r < r1; r++) {
        const out = r * d
        for (let j = j0; j < j1; j++) to[out + j] = from[j * rows + r]
      }
    }
  }
}

/** Copies little-endian bytes into a fresh typed array (a copy also fixes alignment for 4-byte types). */
function copyTyped(bytes: Uint8Array, dtype: NpyDtype): Float32Array | Uint8Array | Int32Array {
  const copy = new Uint8Array(bytes.length)
  copy.set(bytes)
  if (dtype === 'float32') return new Float32Array(copy.buffer)
  if (dtype === 'int32') return new Int32Array(copy.buffer)
  return copy
}

/** A .npy file open for random row access. */
export interface NpyFile {
  n: number
  d: number
  dtype: NpyDtype
  headerBytes: number
  /** Reads rows [start, start + count); throws RangeError outside [0, n]. */
  readRows(start: number, count: number): Promise<Float32Array | Uint8Array | Int32Array>
  close(): Promise<void>
}

/** Opens a plain (not gzipped) .npy of one of `allowed` dtypes for random row access, checking the file length against the header. */
export async function openNpyFile(file: string, allowed: readonly NpyDtype[]): Promise<NpyFile> {
  const size = await statInput(file)
  const fh = await open(file, 'r')
  try {
    const pre = Buffer.alloc(NPY_PREAMBLE_BYTES)
    await fh.read(pre, 0, NPY_PREAMBLE_BYTES, 0)
    const headerBytes = npyHeaderSize(pre.subarray(0, Math.min(size, NPY_PREAMBLE_BYTES)), file)
    if (headerBytes > size) throw formatError('BAD_HEADER', 'file ends inside the .npy header', { file })
    const head = Buffer.alloc(headerBytes)
    await fh.read(head, 0, headerBytes, 0)
    const header = parseNpyHeader(head, file, allowed)
    const rowBytes = header.d * ITEM_BYTES[header.dtype]
    const expected = headerBytes + header.n * rowBytes
    if (size < expected) {
      const row = rowBytes > 0 ? Math.floor((size - headerBytes) / rowBytes) : 0
      throw formatError(
        'TRUNCATED_BINARY',
        `file has ${size} bytes, the header's ${header.n} × ${header.d} array needs ${expected}`,
        { file, row },
      )
    }
    return {
      ...header,
      async readRows(start: number, count: number) {
        if (
          !Number.isInteger(start) ||
          !Number.isInteger(count) ||
          start < 0 ||
          count < 0 ||
          start + count > header.n
        ) {
          throw new RangeError(`rows [${start}, ${start + count}) are outside [0, ${header.n}) of ${file}`)
        }
        const bytes = Buffer.alloc(count * rowBytes)
        const { bytesRead } = await fh.read(bytes, 0, bytes.length, headerBytes + start * rowBytes)
        if (bytesRead < bytes.length)
          throw formatError('TRUNCATED_BINARY', 'file shrank while reading', { file, row: start })
        // uint8 rows are the read buffer itself (its own ArrayBuffer: Buffer.alloc never pools), so
        // a worker's uint8 partition costs n·d bytes, not twice that until the next GC.
        if (header.dtype === 'uint8') return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)
        return copyTyped(bytes, header.dtype)
      },
      close: () => fh.close(),
    }
  } catch (err) {
    await fh.close()
    throw err
  }
}
