import type { ByteSource } from './byte-source.ts'
import type { ReaderLimits } from './limits.ts'
import type { VectorReader } from './row-batch.ts'
import { readTextTable, type TextTableReport } from './text-table.ts'

/** Reader for CSV: comma-separated numbers, an optional header line (recognised by a non-numeric field), no ids. */
export function csvReader(src: ByteSource, limits: ReaderLimits = {}): VectorReader {
  const report: TextTableReport = { notes: [], pictureNames: null }
  return {
    file: src.file,
    format: 'csv',
    dtype: () => 'float32',
    hasIds: false,
    totalBytes: src.totalBytes,
    bytesRead: src.bytesRead,
    notes: report.notes,
    batches: () => readTextTable(src, 'csv', limits, report),
  }
}
