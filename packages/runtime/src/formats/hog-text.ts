import { createWriteStream } from 'node:fs'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { writeAtomically } from './atomic.ts'
import type { ByteSource } from './byte-source.ts'
import type { ReaderLimits } from './limits.ts'
import type { VectorReader } from './row-batch.ts'
import { readTextTable, type TextTableReport } from './text-table.ts'

/**
 * Reader for HOG text: `pictureId rowId colId f1 … fd` per line, whitespace-separated; ids kept,
 * values float32. Picture ids are integers, or names (any token without white space) when the
 * first line's is not an integer: then `pictureNames()` lists them and ids hold their index.
 */
export function hogTextReader(src: ByteSource, limits: ReaderLimits = {}): VectorReader {
  const report: TextTableReport = { notes: [], pictureNames: null }
  return {
    file: src.file,
    format: 'hog-text',
    dtype: () => 'float32',
    hasIds: true,
    totalBytes: src.totalBytes,
    bytesRead: src.bytesRead,
    notes: report.notes,
    pictureNames: () => report.pictureNames,
    batches: () => readTextTable(src, 'hog', limits, report),
  }
}

/** Shortest decimal that reads back as the same float32, so written text stays compact and exact. */
export function formatFloat32(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x)
  for (let p = 6; p < 9; p++) {
    const s = x.toPrecision(p)
    if (Math.fround(Number(s)) === x) return String(Number(s))
  }
  return String(Number(x.toPrecision(9)))
}

/** Rows per text block handed to the stream: bounded memory, few writes. */
const ROWS_PER_BLOCK = 256

/**
 * Writes HOG text (`pictureId rowId colId f1 … fd` per line, LF endings), gzipped when the name
 * ends in `.gz`, atomically (temporary sibling renamed on success).
 */
export async function writeHogText(
  file: string,
  vectors: Float32Array,
  ids: Int32Array,
  d: number,
): Promise<void> {
  const n = d > 0 ? vectors.length / d : 0
  if (!Number.isInteger(n) || ids.length !== n * 3) {
    throw new RangeError(
      `writeHogText: ${vectors.length} values and ${ids.length} ids do not make rows of width ${d} with 3 ids`,
    )
  }
  function* blocks(): Generator<string> {
    for (let r0 = 0; r0 < n; r0 += ROWS_PER_BLOCK) {
      const lines: string[] = []
      for (let r = r0; r < Math.min(n, r0 + ROWS_PER_BLOCK); r++) {
        const parts: string[] = [String(ids[r * 3]), String(ids[r * 3 + 1]), String(ids[r * 3 + 2])]
        for (let j = 0; j < d; j++) parts.push(formatFloat32(vectors[r * d + j]))
        lines.push(parts.join(' '))
      }
      yield `${lines.join('\n')}\n`
    }
  }
  await writeAtomically(file, async (tmp) => {
    const out = createWriteStream(tmp)
    if (file.endsWith('.gz')) await pipeline(Readable.from(blocks()), createGzip(), out)
    else await pipeline(Readable.from(blocks()), out)
  })
}
