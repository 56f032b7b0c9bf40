import { createReadStream, type ReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'
import { createGunzip } from 'node:zlib'
import { formatError } from './error-codes.ts'
import type { ReaderLimits } from './limits.ts'

/** Bytes read from disk per chunk: large enough that per-chunk overhead vanishes, small enough to stay cache-friendly. */
export const CHUNK_BYTES = 1 << 20

/** A file opened for one streaming pass, gunzipped on the fly when its content is gzip. */
export interface ByteSource {
  file: string
  /** Size of the file on disk (compressed size for gzip). */
  totalBytes: number
  gzip: boolean
  /** Bytes consumed from disk so far (compressed bytes for gzip), for progress. */
  bytesRead(): number
  /** The (decompressed) content, chunk by chunk. Iterate once. */
  chunks: AsyncIterable<Buffer>
}

/** Stats `file`, turning a missing or non-regular file into FILE_NOT_FOUND. */
export async function statInput(file: string): Promise<number> {
  try {
    const s = await stat(file)
    if (!s.isFile()) throw formatError('FILE_NOT_FOUND', 'not a regular file', { file })
    return s.size
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw formatError('FILE_NOT_FOUND', 'no such file', { file })
    throw err
  }
}

/** Reads up to `n` bytes from the start of `file` (raw, not decompressed). */
export async function readHead(file: string, n: number): Promise<Buffer> {
  const fh = await open(file, 'r')
  try {
    const buf = Buffer.alloc(n)
    const { bytesRead } = await fh.read(buf, 0, n, 0)
    return buf.subarray(0, bytesRead)
  } finally {
    await fh.close()
  }
}

/** True when `head` starts with the gzip magic 1f 8b. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b
}

/**
 * Opens `file` for one streaming pass; gzip is recognised by its magic bytes, whatever the name.
 * The file is opened only when `chunks` is first iterated, so a reader that never iterates (or
 * stops early: the generator's `finally` closes it) leaves no descriptor behind. A gzip input
 * that expands past `maxExpandedBytes` fails with EXPANDED_TOO_LARGE as soon as it does.
 */
export async function openByteSource(
  file: string,
  signal?: AbortSignal,
  limits: Pick<ReaderLimits, 'maxExpandedBytes'> = {},
): Promise<ByteSource> {
  const totalBytes = await statInput(file)
  const gzip = isGzip(await readHead(file, 2))
  let raw: ReadStream | null = null
  const open = () => {
    raw = createReadStream(file, { highWaterMark: CHUNK_BYTES })
    return raw
  }
  return {
    file,
    totalBytes,
    gzip,
    bytesRead: () => (raw as ReadStream | null)?.bytesRead ?? 0,
    chunks: iterate(open, gzip, file, signal, limits.maxExpandedBytes ?? Number.POSITIVE_INFINITY),
  }
}

async function* iterate(
  open: () => ReadStream,
  gzip: boolean,
  file: string,
  signal: AbortSignal | undefined,
  maxExpandedBytes: number,
): AsyncGenerator<Buffer> {
  const raw = open()
  const stream = gzip ? raw.pipe(createGunzip({ chunkSize: 256 * 1024 })) : raw
  if (gzip) raw.on('error', (err) => (stream as unknown as { destroy(e: Error): void }).destroy(err))
  let expanded = 0
  try {
    for await (const chunk of stream) {
      signal?.throwIfAborted()
      if (gzip) {
        expanded += (chunk as Buffer).length
        if (expanded > maxExpandedBytes)
          throw formatError(
            'EXPANDED_TOO_LARGE',
            `gzip content expands past the ${maxExpandedBytes}-byte limit (maxExpandedBytes)`,
            { file },
          )
      }
      yield chunk as Buffer
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (gzip && typeof code === 'string' && code.startsWith('Z_')) {
      throw formatError('BAD_GZIP', `corrupt gzip data (${(err as Error).message})`, { file })
    }
    throw err
  } finally {
    raw.destroy()
    if (stream !== raw) (stream as unknown as { destroy(): void }).destroy()
  }
}
