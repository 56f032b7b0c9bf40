// @codebook/runtime/errors — the error types every other entry throws: a stable `code` to branch on.
export { CodebookError, DatasetFormatError, UsageError } from '../errors.ts'
