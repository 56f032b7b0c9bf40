import { formatError } from './error-codes.ts'

/** True when `head` starts with the UTF-8 byte-order mark EF BB BF. */
export function startsWithUtf8ByteOrderMark(head: Uint8Array): boolean {
  return head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf
}

/** True when `head` starts with a UTF-16 byte-order mark (FF FE little-endian, FE FF big-endian). */
export function isUtf16ByteOrderMark(head: Uint8Array): boolean {
  return (
    head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))
  )
}

/** UNSUPPORTED_ENCODING for a UTF-16 text, saying how to convert it. */
export function utf16Error(head: Uint8Array, file: string): Error {
  return formatError(
    'UNSUPPORTED_ENCODING',
    `the text is UTF-16 ${head[0] === 0xff ? 'LE' : 'BE'} (it starts with a UTF-16 byte-order mark); convert it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)`,
    { file, line: 1 },
  )
}

/**
 * The chunks without a leading UTF-8 byte-order mark (noted); a UTF-16 mark is refused with
 * UNSUPPORTED_ENCODING, since every other byte would be a NUL and no number would parse.
 */
export async function* withoutByteOrderMark(
  chunks: AsyncIterable<Buffer>,
  file: string,
  notes: string[],
): AsyncGenerator<Buffer> {
  let head: Buffer | null = null
  let checked = false
  for await (const chunk of chunks) {
    if (checked) {
      yield chunk
      continue
    }
    head = head ? Buffer.concat([head, chunk]) : chunk
    if (head.length < 3) continue
    checked = true
    yield stripByteOrderMark(head, file, notes)
  }
  if (!checked && head) yield stripByteOrderMark(head, file, notes)
}

function stripByteOrderMark(head: Buffer, file: string, notes: string[]): Buffer {
  if (isUtf16ByteOrderMark(head)) throw utf16Error(head, file)
  if (startsWithUtf8ByteOrderMark(head)) {
    notes.push('skipped a UTF-8 byte-order mark')
    return head.subarray(3)
  }
  return head
}
