/**
 * Base of every error the runtime throws on purpose: a stable `code` a program can branch on,
 * and a message that names what was wrong and where. The server maps codes to HTTP statuses;
 * the CLI prints `code: message` and exits with 2.
 */
export class CodebookError extends Error {
  readonly code: string

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

/** Malformed or unreadable input data. `file`, `line` (text) or `row` (binary) locate the problem. */
export class DatasetFormatError extends CodebookError {
  readonly file: string | undefined
  readonly line: number | undefined
  readonly row: number | undefined

  constructor(code: string, message: string, where: { file?: string; line?: number; row?: number } = {}) {
    super(code, message)
    this.file = where.file
    this.line = where.line
    this.row = where.row
  }
}

/** Bad arguments or options: a usage error, reported like bad input (exit code 2). */
export class UsageError extends CodebookError {}
