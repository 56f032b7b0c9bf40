import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { createRng } from '@codebook/runtime/kmeans'

/** A HOG text file written by the test itself (an independent writer for the server's parser). */
export interface HogFixture {
  path: string
  filename: string
  n: number
  d: number
  bytes: number
  /** The first rows as written: ids [pictureId, rowId, colId] and the values as decimal text parsed back. */
  head: Array<{ ids: [number, number, number]; values: number[] }>
}

/**
 * Writes `n` seeded rows of `d` values (three decimals in [0, 1), like normalised HOG cells) as
 * HOG text `pictureId rowId colId f1 … fd`, streaming so large fixtures take little memory.
 * Keeps the first `keep` rows for assertions.
 */
export async function writeHogFixture(
  dir: string,
  options: { filename: string; n: number; d: number; seed: number; keep?: number },
): Promise<HogFixture> {
  const { filename, n, d } = options
  const keep = options.keep ?? 20
  const rng = createRng(options.seed)
  const path = join(dir, filename)
  const out = createWriteStream(path)
  const head: HogFixture['head'] = []
  let bytes = 0
  let block: string[] = []
  for (let r = 0; r < n; r++) {
    // 16 × 16 patches per picture, like a dense HOG grid.
    const ids: [number, number, number] = [Math.floor(r / 256), Math.floor((r % 256) / 16), r % 16]
    const values: number[] = []
    const text: string[] = []
    for (let j = 0; j < d; j++) {
      const milli = rng.int(1000)
      values.push(milli / 1000)
      text.push((milli / 1000).toFixed(3))
    }
    if (r < keep) head.push({ ids, values })
    const line = `${ids.join(' ')} ${text.join(' ')}\n`
    bytes += Buffer.byteLength(line)
    block.push(line)
    if (block.length === 1000 || r === n - 1) {
      if (!out.write(block.join(''))) await once(out, 'drain')
      block = []
    }
  }
  out.end()
  await once(out, 'finish')
  return { path, filename, n, d, bytes, head }
}
