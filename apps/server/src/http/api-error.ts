import { CodebookError, DatasetFormatError, UsageError } from '@codebook/runtime/errors'

/** A coded error that carries the HTTP status to answer with. Thrown by routes and services. */
export class ApiError extends CodebookError {
  readonly statusCode: number

  constructor(statusCode: number, code: string, message: string, options?: ErrorOptions) {
    super(code, message, options)
    this.statusCode = statusCode
  }
}

/** `DATASET_NOT_FOUND` (404) for a dataset id that does not exist. */
export function datasetNotFound(id: string): ApiError {
  return new ApiError(404, 'DATASET_NOT_FOUND', `no dataset with id ${id}`)
}

/** `UPLOAD_TOO_LARGE` (413): the body exceeds CODEBOOK_MAX_UPLOAD_BYTES. */
export function uploadTooLarge(maxBytes: number): ApiError {
  return new ApiError(
    413,
    'UPLOAD_TOO_LARGE',
    `upload exceeds the limit of ${maxBytes} bytes (CODEBOOK_MAX_UPLOAD_BYTES)`,
  )
}

// Codes the runtime throws whose meaning is not "bad input data".
const statusByCode: Record<string, number> = {
  HOME_LOCKED: 503,
  CONFIG_INVALID: 500,
}

/** HTTP status for a runtime or server error: its own status, else by class and code. */
export function statusOf(err: CodebookError): number {
  if (err instanceof ApiError) return err.statusCode
  const byCode = statusByCode[err.code]
  if (byCode !== undefined) return byCode
  if (err instanceof DatasetFormatError) return 422
  if (err instanceof UsageError) return 400
  return 500
}
