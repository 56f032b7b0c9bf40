import type { DatasetFormat, VectorDtype } from '@codebook/shared'

/** A run of consecutive rows from a reader: row-major values, plus ids and source line numbers where the format has them. */
export interface RowBatch {
  /** Rows in this batch. */
  rows: number
  /** Index of the first row of this batch in the whole input (0-based). */
  firstRow: number
  d: number
  values: Float32Array | Uint8Array
  /** (pictureId, rowId, colId) per row, or null when the format carries no ids. */
  ids: Int32Array | null
  /** 1-based source line of each row for text formats (so later checks can name it), else null. */
  lines: Float64Array | null
}

/** One streaming pass over an input file, as every format reader presents it. */
export interface VectorReader {
  file: string
  format: DatasetFormat
  /** Source dtype; for .npy it is known only once the header is read, so `batches()` may refine it before the first batch. */
  dtype(): VectorDtype
  hasIds: boolean
  totalBytes: number
  bytesRead(): number
  /** What the reader converted or skipped on the way ("converted from float64", …); filled while `batches()` runs. */
  notes: string[]
  /** HOG picture names by index (ids column 0 indexes them) once `batches()` has run, when the ids are names; absent or null otherwise. */
  pictureNames?: () => string[] | null
  /** The rows, batch by batch; iterate once. Throws `DatasetFormatError` on malformed input. */
  batches(): AsyncGenerator<RowBatch>
}
