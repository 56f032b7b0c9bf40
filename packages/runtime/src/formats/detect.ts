import { constants, gunzipSync } from 'node:zlib'
import type { DatasetFormat } from '@codebook/shared'
import { isGzip, readHead, statInput } from './byte-source.ts'
import { isUtf16ByteOrderMark, startsWithUtf8ByteOrderMark, utf16Error } from './encoding.ts'
import { formatError } from './error-codes.ts'
import { NPY_MAGIC } from './npy/npy-header.ts'
import { parseDecimal, parseInteger } from './text-numbers.ts'
import { MAX_VECS_DIMENSION } from './vecs.ts'

const EXTENSIONS: Record<string, DatasetFormat> = {
  '.txt': 'hog-text',
  '.hog': 'hog-text',
  '.npy': 'npy',
  '.fvecs': 'fvecs',
  '.bvecs': 'bvecs',
  '.csv': 'csv',
}

/** Raw bytes sniffed from the start of a file: enough lines of text or rows of a .vecs to judge. */
const SNIFF_BYTES = 64 * 1024

/** The format the file name implies (`.gz` is stripped first), or null. */
export function formatFromName(file: string): DatasetFormat | null {
  let name = file.toLowerCase()
  if (name.endsWith('.gz')) name = name.slice(0, -3)
  const dot = name.lastIndexOf('.')
  if (dot < 0 || dot < name.lastIndexOf('/')) return null
  return EXTENSIONS[name.slice(dot)] ?? null
}

/**
 * Detects the format of `file`: from its name when the extension is known, else from its
 * content (npy magic; gzip is looked inside; text lines of a picture id, 2 integers, then numbers → hog-text,
 * commas → csv; .fvecs/.bvecs by a consistent int32 dimension matching the file size).
 * Throws UNKNOWN_FORMAT when nothing fits.
 */
export async function detectFormat(file: string): Promise<DatasetFormat> {
  const size = await statInput(file)
  const byName = formatFromName(file)
  if (byName) return byName
  let head = await readHead(file, SNIFF_BYTES)
  let knownSize: number | null = size
  let complete = head.length === size
  if (isGzip(head)) {
    try {
      // SYNC_FLUSH lets zlib inflate a prefix of the stream without complaining that it ends early.
      head = gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 16 * SNIFF_BYTES })
    } catch (err) {
      if (err instanceof RangeError) head = Buffer.alloc(0)
      else throw formatError('BAD_GZIP', `corrupt gzip data (${(err as Error).message})`, { file })
    }
    knownSize = null
    complete = false
  }
  const format = formatFromContent(head, knownSize, complete, file)
  if (!format)
    throw formatError(
      'UNKNOWN_FORMAT',
      'cannot tell the format from the name or the content; pass --format (hog-text, npy, fvecs, bvecs, csv)',
      { file },
    )
  return format
}

/**
 * Judges a format from the first bytes of the (decompressed) content. `size` is the whole
 * content's size when known; `complete` says the sample is the whole content.
 */
export function formatFromContent(
  head: Buffer,
  size: number | null,
  complete: boolean,
  file = 'input',
): DatasetFormat | null {
  if (head.length >= NPY_MAGIC.length && head.subarray(0, NPY_MAGIC.length).equals(NPY_MAGIC)) return 'npy'
  // A UTF-8 byte-order mark is skipped by the text readers, so judge the text after it.
  const text = startsWithUtf8ByteOrderMark(head) ? head.subarray(3) : head
  if (looksLikeText(text)) return textFormat(text, complete)
  const vecs = vecsFormat(head, size)
  if (vecs === null && isUtf16ByteOrderMark(head)) throw utf16Error(head, file)
  return vecs
}

function looksLikeText(head: Buffer): boolean {
  if (head.length === 0) return false
  for (let i = 0; i < head.length; i++) {
    const c = head[i]
    if (c < 9 || (c > 13 && c < 32) || c === 127) return false
  }
  return true
}

function textFormat(head: Buffer, complete: boolean): DatasetFormat | null {
  // Judge whole lines only: a sample cut mid-line would look like a short row.
  const end = complete ? head.length : head.lastIndexOf(10)
  const lines = head
    .subarray(0, Math.max(0, end))
    .toString('latin1')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
  const first = lines[0]
  if (first === undefined) return null
  if (first.includes(',')) return 'csv'
  const tokens = first.split(/\s+/)
  const bytes = (s: string) => Buffer.from(s, 'latin1')
  const isInt = (s: string) => !Number.isNaN(parseInteger(bytes(s), 0, s.length))
  const isNum = (s: string) => !Number.isNaN(parseDecimal(bytes(s), 0, s.length))
  // HOG: a picture id (an integer or a name), row and column ids, then numbers.
  if (tokens.length >= 4 && tokens.slice(1, 3).every(isInt) && tokens.slice(3).every(isNum)) return 'hog-text'
  // A single numeric column is a one-column CSV.
  if (tokens.length === 1 && lines.every((l) => isNum(l))) return 'csv'
  return null
}

function vecsFormat(head: Buffer, size: number | null): DatasetFormat | null {
  if (head.length < 4) return null
  const d = head.readInt32LE(0)
  if (d < 1 || d > MAX_VECS_DIMENSION) return null
  for (const [format, item] of [
    ['fvecs', 4],
    ['bvecs', 1],
  ] as const) {
    const rowBytes = 4 + d * item
    if (size !== null && size % rowBytes !== 0) continue
    let consistent = true
    let checked = 0
    for (let off = 0; off + 4 <= head.length && checked < 1000; off += rowBytes, checked++) {
      if (head.readInt32LE(off) !== d) {
        consistent = false
        break
      }
    }
    // Without a size to match, one row prefix proves little: ask for a second.
    if (consistent && (size !== null || checked >= 2)) return format
  }
  return null
}
