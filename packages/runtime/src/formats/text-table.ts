import type { ByteSource } from './byte-source.ts'
import { withoutByteOrderMark } from './encoding.ts'
import { formatError } from './error-codes.ts'
import { DEFAULT_MAX_FIELDS, DEFAULT_MAX_LINE_BYTES, type ReaderLimits } from './limits.ts'
import { PictureNameTable, STORE_PICTURE_NAMES } from './picture-names.ts'
import type { RowBatch } from './row-batch.ts'
import { isNonFiniteWord, latin1, parseDecimal, parseInteger, scanDecimal, scanEnd } from './text-numbers.ts'

/** How a text table is laid out: HOG text (whitespace, three integer ids first) or CSV (commas, optional header). */
export type TextLayout = 'hog' | 'csv'

const SPACE = 32
const TAB = 9
const CR = 13
const LF = 10
const COMMA = 44
const QUOTE = 34
const ID_FIELDS = 3

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === CR || c === 11 || c === 12
}

/** Grows row storage by doubling so a chunk of any row width needs no second pass. */
class BatchBuilder {
  rows = 0
  values: Float32Array
  ids: Int32Array | null
  lines: Float64Array

  constructor(
    readonly d: number,
    private capacity: number,
    withIds: boolean,
  ) {
    this.values = new Float32Array(capacity * d)
    this.ids = withIds ? new Int32Array(capacity * ID_FIELDS) : null
    this.lines = new Float64Array(capacity)
  }

  /** Makes room for one more row and returns its index. */
  reserve(): number {
    if (this.rows === this.capacity) {
      this.capacity *= 2
      const values = new Float32Array(this.capacity * this.d)
      values.set(this.values)
      this.values = values
      if (this.ids) {
        const ids = new Int32Array(this.capacity * ID_FIELDS)
        ids.set(this.ids)
        this.ids = ids
      }
      const lines = new Float64Array(this.capacity)
      lines.set(this.lines)
      this.lines = lines
    }
    return this.rows
  }

  take(firstRow: number): RowBatch {
    const n = this.rows
    const batch: RowBatch = {
      rows: n,
      firstRow,
      d: this.d,
      values: this.values.subarray(0, n * this.d),
      ids: this.ids ? this.ids.subarray(0, n * ID_FIELDS) : null,
      lines: this.lines.subarray(0, n),
    }
    this.values = new Float32Array(this.capacity * this.d)
    this.ids = this.ids ? new Int32Array(this.capacity * ID_FIELDS) : null
    this.lines = new Float64Array(this.capacity)
    this.rows = 0
    return batch
  }
}

/** What a text pass finds besides its rows, filled in while it runs. */
export interface TextTableReport {
  /** What was skipped or interpreted ("skipped a UTF-8 byte-order mark", …). */
  notes: string[]
  /** HOG picture names by index when picture ids are names, else null. */
  pictureNames: string[] | null
}

/**
 * Parses a line-oriented numeric table straight from bytes: numbers are parsed in place
 * (no string per field), lines split with the native `indexOf`. Blank lines are skipped,
 * CRLF and LF both end a line, and the last line may lack its newline. The first data line
 * fixes the field count (for CSV, the header when there is one).
 */
export async function* readTextTable(
  src: ByteSource,
  layout: TextLayout,
  limits: ReaderLimits = {},
  report: TextTableReport = { notes: [], pictureNames: null },
): AsyncGenerator<RowBatch> {
  const notes = report.notes
  const file = src.file
  const hog = layout === 'hog'
  const maxLineBytes = limits.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  const maxFields = limits.maxFields ?? DEFAULT_MAX_FIELDS
  let lineNo = 0
  let fields = -1
  let d = 0
  let rowsDone = 0
  let builder: BatchBuilder | null = null
  let headerSeen = false
  // HOG picture ids are names when the first line's is not an integer (then every line's is a name).
  let pictures: PictureNameTable | null = null

  const fail = (code: string, reason: string): never => {
    throw formatError(code, reason, { file, line: lineNo })
  }

  const badNumber = (buf: Uint8Array, s: number, e: number, what: string): never => {
    const token = latin1(buf, s, Math.min(e, s + 40))
    if (isNonFiniteWord(buf, s, e))
      fail('NON_FINITE_VALUE', `${what} is ${JSON.stringify(token)}, not a finite number`)
    return fail('NON_NUMERIC_FIELD', `${what} ${JSON.stringify(token)} is not a number`)
  }

  const tooManyFields = (): never => fail('TOO_MANY_FIELDS', `more than ${maxFields} fields (maxFields)`)

  /**
   * Counts the fields of the first line (which fixes the width) and, for CSV, says whether one
   * is not a number (then the line is a header). Fails as soon as the count passes maxFields.
   */
  const scanFirstLine = (buf: Uint8Array, s: number, e: number): { width: number; nonNumeric: boolean } => {
    let width = 0
    let nonNumeric = false
    if (hog) {
      let i = s
      for (;;) {
        while (i < e && isBlank(buf[i])) i++
        if (i >= e) break
        while (i < e && !isBlank(buf[i])) i++
        if (++width > maxFields) tooManyFields()
      }
    } else {
      let i = s
      for (;;) {
        let j = i
        while (j < e && buf[j] !== COMMA) j++
        if (++width > maxFields) tooManyFields()
        const [a, b] = trimCsv(buf, i, j)
        if (b <= a || (Number.isNaN(parseDecimal(buf, a, b)) && !isNonFiniteWord(buf, a, b)))
          nonNumeric = true
        if (j >= e) break
        i = j + 1
      }
    }
    return { width, nonNumeric }
  }

  const start = (width: number): void => {
    fields = width
    d = hog ? width - ID_FIELDS : width
    if (d < 1)
      fail(
        'WRONG_FIELD_COUNT',
        `expected at least ${hog ? 4 : 1} fields (${hog ? 'pictureId rowId colId f1 …' : 'f1,…'}), found ${width}`,
      )
    builder = new BatchBuilder(d, Math.max(16, Math.ceil(65536 / d)), hog)
  }

  const parseLine = (buf: Uint8Array, s: number, e: number): void => {
    while (e > s && isBlank(buf[e - 1])) e--
    let first = s
    while (first < e && isBlank(buf[first])) first++
    if (first >= e) return // blank line
    if (fields < 0) {
      const { width, nonNumeric } = scanFirstLine(buf, first, e)
      start(width)
      if (hog) {
        let end = first
        while (end < e && !isBlank(buf[end])) end++
        if (Number.isNaN(parseInteger(buf, first, end))) {
          pictures = new PictureNameTable()
          report.pictureNames = pictures.names
          notes.push(`picture ids are names: ids.npy column 0 indexes ${STORE_PICTURE_NAMES}`)
        }
      }
      if (!hog && !headerSeen) {
        headerSeen = true
        if (nonNumeric) return // the header fixes the width; data starts on the next line
      }
    }
    const b = builder as BatchBuilder
    const r = b.reserve()
    const values = b.values
    const base = r * d
    b.lines[r] = lineNo
    let f = 0
    if (hog) {
      const ids = b.ids as Int32Array
      let i = first
      for (;;) {
        while (i < e && isBlank(buf[i])) i++
        if (i >= e) break
        if (f >= ID_FIELDS && f < fields) {
          // Hot path: parse and find the token's end in one pass.
          const x = scanDecimal(buf, i, e)
          const j = scanEnd
          if (Number.isNaN(x)) badNumber(buf, i, j, `field ${f + 1}`)
          const v = Math.fround(x)
          if (v === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY)
            fail('NON_FINITE_VALUE', `field ${f + 1} (${latin1(buf, i, j)}) overflows float32`)
          values[base + f - ID_FIELDS] = v
          f++
          i = j
          continue
        }
        // Off the hot path: ids, and fields past the width (counted for the error message).
        if (f >= maxFields) tooManyFields()
        let j = i
        while (j < e && !isBlank(buf[j])) j++
        if (f === 0 && pictures) {
          ids[r * ID_FIELDS] = pictures.indexOf(buf, i, j, fail)
        } else if (f < ID_FIELDS) {
          const id = parseInteger(buf, i, j)
          if (Number.isNaN(id))
            fail(
              'NON_NUMERIC_FIELD',
              `id field ${f + 1} ${JSON.stringify(latin1(buf, i, Math.min(j, i + 40)))} is not an integer${f === 0 ? " (the first line's picture id was one, so every line's must be)" : ''}`,
            )
          if (id !== (id | 0)) fail('VALUE_OUT_OF_RANGE', `id field ${f + 1} (${id}) does not fit int32`)
          ids[r * ID_FIELDS + f] = id
        }
        f++
        i = j
      }
    } else {
      let i = first
      for (;;) {
        let j = i
        while (j < e && buf[j] !== COMMA) j++
        if (f < fields) {
          const [a, z] = trimCsv(buf, i, j)
          if (z <= a) fail('NON_NUMERIC_FIELD', `field ${f + 1} is empty`)
          const x = parseDecimal(buf, a, z)
          if (Number.isNaN(x)) badNumber(buf, a, z, `field ${f + 1}`)
          const v = Math.fround(x)
          if (v === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY)
            fail('NON_FINITE_VALUE', `field ${f + 1} (${latin1(buf, a, z)}) overflows float32`)
          values[base + f] = v
        } else if (f >= maxFields) tooManyFields()
        f++
        if (j >= e) break
        i = j + 1
      }
    }
    if (f !== fields) fail('WRONG_FIELD_COUNT', `expected ${fields} fields, found ${f}`)
    b.rows++
  }

  const flush = (): RowBatch | null => {
    if (!builder || builder.rows === 0) return null
    const batch = builder.take(rowsDone)
    rowsDone += batch.rows
    return batch
  }

  const tooLong = (): never => {
    lineNo++
    return fail(
      'LINE_TOO_LONG',
      `longer than ${maxLineBytes} bytes (maxLineBytes); is the file missing its newlines?`,
    )
  }

  // Bytes of a line that straddles chunks, at most maxLineBytes: kept as a list so a long line
  // is joined once, not per chunk, and checked before each piece is kept, never after.
  let pending: Buffer[] = []
  let pendingBytes = 0
  for await (const chunk of withoutByteOrderMark(src.chunks, file, notes)) {
    let pos = 0
    if (pendingBytes > 0) {
      const nl = chunk.indexOf(LF)
      if (pendingBytes + (nl < 0 ? chunk.length : nl) > maxLineBytes) tooLong()
      if (nl < 0) {
        pending.push(chunk)
        pendingBytes += chunk.length
        continue
      }
      pending.push(chunk.subarray(0, nl))
      const line = Buffer.concat(pending)
      pending = []
      pendingBytes = 0
      lineNo++
      parseLine(line, 0, line.length)
      pos = nl + 1
    }
    for (;;) {
      const nl = chunk.indexOf(LF, pos)
      if (nl < 0) break
      if (nl - pos > maxLineBytes) tooLong()
      lineNo++
      parseLine(chunk, pos, nl)
      pos = nl + 1
    }
    if (pos < chunk.length) {
      if (chunk.length - pos > maxLineBytes) tooLong()
      // Copy the tail so the pending list does not pin the whole chunk.
      pending.push(Buffer.from(chunk.subarray(pos)))
      pendingBytes = chunk.length - pos
    }
    const batch = flush()
    if (batch) yield batch
  }
  if (pendingBytes > 0) {
    const line = Buffer.concat(pending)
    lineNo++
    parseLine(line, 0, line.length)
  }
  const batch = flush()
  if (batch) yield batch
  if (rowsDone === 0) throw formatError('EMPTY_INPUT', 'no data rows', { file })
}

/** Bounds of a CSV field without surrounding blanks and one pair of double quotes. */
function trimCsv(buf: Uint8Array, s: number, e: number): [number, number] {
  while (s < e && isBlank(buf[s])) s++
  while (e > s && isBlank(buf[e - 1])) e--
  if (e - s >= 2 && buf[s] === QUOTE && buf[e - 1] === QUOTE) return [s + 1, e - 1]
  return [s, e]
}
