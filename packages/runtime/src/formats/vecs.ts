import type { ByteSource } from './byte-source.ts'
import { formatError } from './error-codes.ts'
import type { RowBatch, VectorReader } from './row-batch.ts'
import { checkFinite } from './validate.ts'

/** Largest dimension accepted from a .vecs row prefix; anything larger is surely not a dimension. */
export const MAX_VECS_DIMENSION = 1 << 24

/**
 * Streaming reader for `.fvecs` (per row: int32 LE d, then d float32 LE) and `.bvecs`
 * (int32 LE d, then d uint8). Every row must repeat the first row's d.
 */
export function vecsReader(src: ByteSource, kind: 'fvecs' | 'bvecs'): VectorReader {
  const item = kind === 'fvecs' ? 4 : 1
  return {
    file: src.file,
    format: kind,
    dtype: () => (kind === 'fvecs' ? 'float32' : 'uint8'),
    hasIds: false,
    totalBytes: src.totalBytes,
    bytesRead: src.bytesRead,
    notes: [],
    batches: async function* (): AsyncGenerator<RowBatch> {
      const file = src.file
      let pending: Buffer = Buffer.alloc(0)
      let d = -1
      let rowBytes = 0
      let rowsDone = 0
      for await (const chunk of src.chunks) {
        pending = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk
        if (d < 0) {
          if (pending.length < 4) continue
          d = pending.readInt32LE(0)
          if (d < 1 || d > MAX_VECS_DIMENSION)
            throw formatError('BAD_HEADER', `first row declares dimension ${d}`, { file, row: 0 })
          rowBytes = 4 + d * item
        }
        const rows = Math.floor(pending.length / rowBytes)
        if (rows > 0) {
          const values = kind === 'fvecs' ? new Float32Array(rows * d) : new Uint8Array(rows * d)
          const bytes = new Uint8Array(values.buffer)
          const stride = d * item
          for (let r = 0; r < rows; r++) {
            const off = r * rowBytes
            const dim = pending.readInt32LE(off)
            if (dim !== d) {
              throw formatError(
                'INCONSISTENT_DIMENSION',
                `row declares dimension ${dim}, the first row ${d}`,
                { file, row: rowsDone + r },
              )
            }
            bytes.set(pending.subarray(off + 4, off + 4 + stride), r * stride)
          }
          if (values instanceof Float32Array) checkFinite(values, d, rowsDone, file)
          const batch: RowBatch = { rows, firstRow: rowsDone, d, values, ids: null, lines: null }
          rowsDone += rows
          pending =
            pending.length > rows * rowBytes
              ? Buffer.from(pending.subarray(rows * rowBytes))
              : Buffer.alloc(0)
          yield batch
        }
      }
      if (pending.length > 0) {
        // A wrong dimension prefix shows up as a short tail too; report the dimension when it is readable.
        if (d > 0 && pending.length >= 4 && pending.readInt32LE(0) !== d) {
          throw formatError(
            'INCONSISTENT_DIMENSION',
            `row declares dimension ${pending.readInt32LE(0)}, the first row ${d}`,
            { file, row: rowsDone },
          )
        }
        throw formatError(
          'TRUNCATED_BINARY',
          `file ends ${pending.length} bytes into a row of ${rowBytes || 4} bytes`,
          { file, row: rowsDone },
        )
      }
      if (rowsDone === 0) throw formatError('EMPTY_INPUT', 'file is empty', { file })
    },
  }
}
