import { open } from 'node:fs/promises'
import type { VectorDtype } from '@codebook/shared'
import type { ByteSource } from '../byte-source.ts'
import { statInput } from '../byte-source.ts'
import { formatError } from '../error-codes.ts'
import type { RowBatch, VectorReader } from '../row-batch.ts'
import { checkFinite } from '../validate.ts'
import {
  ITEM_BYTES,
  NPY_PREAMBLE_BYTES,
  type NpyDtype,
  type NpyHeader,
  npyHeaderSize,
  parseNpyHeader,
} from './npy-header.ts'

/** Rows per batch aim at about this many bytes, whatever d is. */
const BATCH_BYTES = 1 << 20

/** Streaming reader for a 2-D C-order float32/uint8 .npy (possibly gzipped): validates header, length and finiteness. */
export function npyReader(src: ByteSource): VectorReader {
  let dtype: VectorDtype = 'float32'
  return {
    file: src.file,
    format: 'npy',
    dtype: () => dtype,
    hasIds: false,
    totalBytes: src.totalBytes,
    bytesRead: src.bytesRead,
    batches: async function* () {
      const file = src.file
      let pending: Buffer = Buffer.alloc(0)
      let header: NpyHeader | null = null
      let rowBytes = 0
      let rowsDone = 0
      let batchRows = 0
      for await (const chunk of src.chunks) {
        pending = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk
        if (!header) {
          if (pending.length < NPY_PREAMBLE_BYTES) continue
          if (pending.length < npyHeaderSize(pending, file)) continue
          header = parseNpyHeader(pending, file, ['float32', 'uint8'])
          if (header.n === 0) throw formatError('EMPTY_INPUT', 'shape has n = 0 rows', { file })
          if (header.d === 0) throw formatError('BAD_HEADER', 'shape has d = 0 columns', { file })
          dtype = header.dtype as VectorDtype
          rowBytes = header.d * ITEM_BYTES[header.dtype]
          batchRows = Math.max(1, Math.floor(BATCH_BYTES / rowBytes))
          pending = pending.subarray(header.headerBytes)
        }
        while (pending.length >= rowBytes && rowsDone < header.n) {
          const rows = Math.min(header.n - rowsDone, Math.floor(pending.length / rowBytes), batchRows)
          const batch = toBatch(pending.subarray(0, rows * rowBytes), header, rowsDone, rows, file)
          pending = pending.subarray(rows * rowBytes)
          rowsDone += rows
          yield batch
        }
        if (rowsDone === header.n && pending.length > 0) {
          throw formatError(
            'BAD_HEADER',
            `data continues past the ${header.n} × ${header.d} array the header declares`,
            { file },
          )
        }
        // Keep only the incomplete row, copied, so the chunk it came from can be freed.
        if (pending.length > 0 && pending.length < rowBytes) pending = Buffer.from(pending)
      }
      if (!header) {
        if (pending.length >= 10) npyHeaderSize(pending, file)
        throw formatError(
          pending.length === 0 ? 'EMPTY_INPUT' : 'BAD_HEADER',
          pending.length === 0 ? 'file is empty' : 'file ends inside the .npy header',
          { file },
        )
      }
      if (rowsDone < header.n) {
        throw formatError(
          'TRUNCATED_BINARY',
          `file ends inside row ${rowsDone} of ${header.n} declared by the header`,
          { file, row: rowsDone },
        )
      }
    },
  }
}

/** Copies `rows` rows out of `bytes` into an aligned typed array and checks float values are finite. */
function toBatch(bytes: Buffer, header: NpyHeader, firstRow: number, rows: number, file: string): RowBatch {
  const values = copyTyped(bytes, header.dtype) as Float32Array | Uint8Array
  if (values instanceof Float32Array) checkFinite(values, header.d, firstRow, file)
  return { rows, firstRow, d: header.d, values, ids: null, lines: null }
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
        return copyTyped(bytes, header.dtype)
      },
      close: () => fh.close(),
    }
  } catch (err) {
    await fh.close()
    throw err
  }
}
