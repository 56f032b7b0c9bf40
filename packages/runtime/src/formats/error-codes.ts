import { DatasetFormatError } from '../errors.ts'

/**
 * Every code a dataset reader or writer throws (as a `DatasetFormatError`), with what it means.
 * Text errors name a 1-based `line`; binary errors name a 0-based `row` (the index NumPy would use).
 */
export const datasetErrorCodes: Record<string, string> = {
  WRONG_FIELD_COUNT: 'A HOG text or CSV line has a different number of fields from the first data line.',
  NON_NUMERIC_FIELD:
    "A field is not a number (or a HOG row/column id is not an integer, or a picture id is not one where the first line's was).",
  NON_FINITE_VALUE: 'A value is NaN or infinite (or overflows float32).',
  INCONSISTENT_DIMENSION: 'A .fvecs/.bvecs row declares a dimension different from the first row.',
  TRUNCATED_BINARY: 'A binary file ends in the middle of a row.',
  BAD_HEADER: 'A .npy magic, header, dtype, shape or layout (or a .vecs first dimension) is invalid.',
  UNSUPPORTED_DTYPE: 'A .npy dtype other than float32, float64 (converted to float32) or uint8.',
  EMPTY_INPUT: 'The input holds no rows.',
  UNKNOWN_FORMAT: 'The format could not be detected from the file name or content; pass one explicitly.',
  BAD_GZIP: 'The gzip stream is corrupt or truncated.',
  FILE_NOT_FOUND: 'The input file does not exist or is not a regular file.',
  VALUE_OUT_OF_RANGE:
    'A value does not fit the requested dtype (uint8 needs integers in [0, 255]) or an id does not fit int32.',
  LINE_TOO_LONG:
    'A HOG text or CSV line is longer than maxLineBytes (default 1 MiB); often a file without newlines.',
  TOO_MANY_FIELDS: 'A HOG text or CSV line has more fields than maxFields (default 65,536).',
  EXPANDED_TOO_LARGE: 'A gzip input decompresses to more than maxExpandedBytes.',
  UNSUPPORTED_ENCODING:
    'A text file is UTF-16 (it starts with a UTF-16 byte-order mark); convert it to UTF-8.',
  BAD_PICTURE_NAME:
    'A HOG picture id that is a name is longer than 1,024 bytes, not UTF-8, or holds a control character.',
  TOO_MANY_PICTURES: 'A HOG text names more than 4,194,304 distinct pictures.',
  TRANSPOSE_TOO_LARGE:
    'A gzipped Fortran-order .npy is too large to transpose in memory; decompress it (plain files of any size are transposed from disk).',
}

/** Where in an input a problem is: the file, and a 1-based text line or a 0-based binary row. */
export interface ErrorLocation {
  file: string
  line?: number
  row?: number
}

/** Builds a `DatasetFormatError` whose message starts with `file: line N:` or `file: row N:` so a person can find it. */
export function formatError(code: string, reason: string, where: ErrorLocation): DatasetFormatError {
  const at =
    where.line !== undefined ? `: line ${where.line}` : where.row !== undefined ? `: row ${where.row}` : ''
  return new DatasetFormatError(code, `${where.file}${at}: ${reason}`, where)
}
