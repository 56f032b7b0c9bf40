import { isUtf8 } from 'node:buffer'
import { createWriteStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/** File beside `ids.npy` in a stored dataset when HOG picture ids are names: line i is the name of index i. */
export const STORE_PICTURE_NAMES = 'picture-names.txt'

/** Longest picture name accepted (a Flickr id, a file name or a hash is far shorter). */
export const MAX_PICTURE_NAME_BYTES = 1024

/** Most distinct picture names one file may hold (their table lives in memory during the pass). */
export const MAX_PICTURE_NAMES = 1 << 22

/**
 * Picture names of a HOG text whose first id is not an integer (`img0 0 0 …`, Flickr ids, file
 * names, hashes), each given the index of its first appearance. The index goes into ids.npy
 * column 0; `names` is written beside it. Consecutive rows of one picture cost one byte compare.
 */
export class PictureNameTable {
  readonly names: string[] = []
  private readonly index = new Map<string, number>()
  private last: Buffer = Buffer.alloc(0)
  private lastIndex = -1

  /**
   * The index of the name in bytes [s, e) of `buf`, added when new. `fail` is called (and
   * throws) for a name over `MAX_PICTURE_NAME_BYTES`, not UTF-8, holding a control character,
   * or past `MAX_PICTURE_NAMES`.
   */
  indexOf(buf: Uint8Array, s: number, e: number, fail: (code: string, reason: string) => never): number {
    const bytes = Buffer.from(buf.buffer, buf.byteOffset + s, e - s)
    if (this.lastIndex >= 0 && bytes.equals(this.last)) return this.lastIndex
    if (bytes.length > MAX_PICTURE_NAME_BYTES)
      fail('BAD_PICTURE_NAME', `picture id is longer than ${MAX_PICTURE_NAME_BYTES} bytes`)
    for (const c of bytes)
      if (c < 32 || c === 127) fail('BAD_PICTURE_NAME', `picture id holds the control character ${c}`)
    if (!isUtf8(bytes)) fail('BAD_PICTURE_NAME', 'picture id is not valid UTF-8')
    const name = bytes.toString('utf8')
    let i = this.index.get(name)
    if (i === undefined) {
      if (this.names.length >= MAX_PICTURE_NAMES)
        fail('TOO_MANY_PICTURES', `more than ${MAX_PICTURE_NAMES} distinct picture names`)
      i = this.names.length
      this.names.push(name)
      this.index.set(name, i)
    }
    this.last = Buffer.from(bytes)
    this.lastIndex = i
    return i
  }
}

/** Writes `names` one per line (UTF-8, LF; names hold no white space, so no quoting is needed). */
export async function writePictureNames(file: string, names: readonly string[]): Promise<void> {
  function* blocks(): Generator<string> {
    for (let i = 0; i < names.length; i += 4096) yield `${names.slice(i, i + 4096).join('\n')}\n`
  }
  await pipeline(Readable.from(blocks()), createWriteStream(file))
}

/**
 * The picture names of a stored dataset directory (index i → `names[i]`, the value of ids.npy
 * column 0), or null when its picture ids are integers.
 */
export async function readPictureNames(dir: string): Promise<string[] | null> {
  let text: string
  try {
    text = await readFile(join(dir, STORE_PICTURE_NAMES), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  const names = text.split('\n')
  names.pop() // the final newline
  return names
}
