import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import { openNpy } from '@codebook/runtime/formats'
import type { Run, Vocabulary, VocabularyExportFormat } from '@codebook/shared'

/** Centroids read from the .npy per chunk: bounded memory for large vocabularies. */
const ROWS_PER_CHUNK = 1024

/** What an export needs: the vocabulary, its .npy file, the run that learned it and its inertia per iteration. */
export interface VocabularyExportSource {
  vocabulary: Vocabulary
  file: string
  run: Pick<Run, 'id' | 'params' | 'datasetId'>
  inertiaHistory: number[]
}

/** MIME type and file extension of each export format. */
export const exportContentTypes: Record<VocabularyExportFormat, string> = {
  npy: 'application/octet-stream',
  fvecs: 'application/octet-stream',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
}

/** The download name of an export, e.g. `vocabulary-<id>.fvecs`. */
export function exportFileName(vocabularyId: string, format: VocabularyExportFormat): string {
  // Ids are server-made UUIDs; anything else is replaced so the header stays a plain token.
  return `vocabulary-${vocabularyId.replace(/[^A-Za-z0-9-]/g, '_')}.${format}`
}

/** Yields the centroids in chunks of rows (float32, row-major). */
async function* centroidChunks(
  file: string,
): AsyncGenerator<{ rows: Float32Array; count: number; d: number }> {
  const f = await openNpy(file)
  try {
    for (let start = 0; start < f.n; start += ROWS_PER_CHUNK) {
      const count = Math.min(ROWS_PER_CHUNK, f.n - start)
      yield { rows: Float32Array.from(await f.readRows(start, count)), count, d: f.d }
    }
  } finally {
    await f.close()
  }
}

async function* fvecs(file: string): AsyncGenerator<Buffer> {
  for await (const { rows, count, d } of centroidChunks(file)) {
    const out = Buffer.alloc(count * (4 + 4 * d))
    for (let r = 0; r < count; r++) {
      const at = r * (4 + 4 * d)
      out.writeInt32LE(d, at)
      for (let j = 0; j < d; j++) out.writeFloatLE(rows[r * d + j]!, at + 4 + 4 * j)
    }
    yield out
  }
}

/** One centroid's values; String(float32 widened to double) re-parses to the same float32. */
function rowValues(rows: Float32Array, r: number, d: number): string {
  return Array.from(rows.subarray(r * d, (r + 1) * d), String).join(',')
}

async function* csv(file: string): AsyncGenerator<string> {
  for await (const { rows, count, d } of centroidChunks(file)) {
    let out = ''
    for (let r = 0; r < count; r++) out += `${rowValues(rows, r, d)}\n`
    yield out
  }
}

async function* json(source: VocabularyExportSource): AsyncGenerator<string> {
  const { vocabulary, run } = source
  const head = {
    vocabulary: { id: vocabulary.id, k: vocabulary.k, d: vocabulary.d },
    run: { id: run.id, params: run.params, datasetId: run.datasetId },
    inertiaHistory: source.inertiaHistory,
  }
  // The head is stringified whole; the centroids array is streamed row by row after it.
  yield `${JSON.stringify(head).slice(0, -1)},"centroids":[`
  let first = true
  for await (const { rows, count, d } of centroidChunks(source.file)) {
    let out = ''
    for (let r = 0; r < count; r++) {
      out += `${first ? '' : ','}[${rowValues(rows, r, d)}]`
      first = false
    }
    yield out
  }
  yield ']}'
}

/** A stream of the vocabulary in `format` (see `VocabularyExportFormat` in `@codebook/shared`). */
export function exportVocabulary(source: VocabularyExportSource, format: VocabularyExportFormat): Readable {
  switch (format) {
    case 'npy':
      return createReadStream(source.file)
    case 'fvecs':
      return Readable.from(fvecs(source.file))
    case 'csv':
      return Readable.from(csv(source.file))
    case 'json':
      return Readable.from(json(source))
  }
}
