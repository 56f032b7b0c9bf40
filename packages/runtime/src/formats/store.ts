import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { DatasetFormat, VectorDtype, VectorStats } from '@codebook/shared'
import { CodebookError } from '../errors.ts'
import { tempSibling } from './atomic.ts'
import { formatError } from './error-codes.ts'
import type { ReaderLimits } from './limits.ts'
import { openNpyFile } from './npy/npy-reader.ts'
import { NpyStreamWriter } from './npy/npy-writer.ts'
import { STORE_PICTURE_NAMES, writePictureNames } from './picture-names.ts'
import { openVectorReader } from './readers.ts'
import type { RowBatch, VectorReader } from './row-batch.ts'
import { StatsAccumulator } from './stats.ts'

/** Progress of an import: bytes consumed from disk (compressed bytes for gzip) and rows parsed so far. */
export interface ImportProgress {
  bytesRead: number
  totalBytes: number
  rows: number
}

/** Options of `importToStore` / `inspectFile`; the reader limits bound what one input may cost. */
export interface ImportOptions extends ReaderLimits {
  /** Input format; detected from the name, then the content, when absent. */
  format?: DatasetFormat
  /** Output dtype; the source's when absent. uint8 needs integral values in [0, 255]. */
  dtype?: VectorDtype
  /** Called after every batch of rows (about every MB of input). */
  onProgress?: (p: ImportProgress) => void
  /** Aborts the pass; the promise rejects with the signal's reason and nothing is left behind. */
  signal?: AbortSignal
}

/** File names inside a stored dataset directory. */
export const STORE_VECTORS = 'vectors.npy'
export const STORE_IDS = 'ids.npy'

/** Where a dataset pass writes: the vectors .npy, the ids .npy and the picture-name table. */
interface NpyTargets {
  vectors: string
  ids: string
  pictureNames: string
}

/**
 * The one code path behind import, convert and inspect: reads every batch, converts to the
 * output dtype, accumulates stats and (when `targets` is given) streams rows into .npy files.
 * Writes go to `targets` as given; atomicity is the caller's (temporary paths renamed on success).
 */
export async function runDatasetPass(
  reader: VectorReader,
  options: ImportOptions,
  targets: NpyTargets | null,
): Promise<{ stats: VectorStats; wroteIds: boolean; wrotePictureNames: boolean }> {
  const stats = new StatsAccumulator()
  let vectors: NpyStreamWriter | null = null
  let ids: NpyStreamWriter | null = null
  let dtype: VectorDtype | null = null
  const names = () => reader.pictureNames?.() ?? null
  const report = () =>
    options.onProgress?.({ bytesRead: reader.bytesRead(), totalBytes: reader.totalBytes, rows: stats.n })
  try {
    for await (const batch of reader.batches()) {
      options.signal?.throwIfAborted()
      dtype ??= options.dtype ?? reader.dtype()
      const values = convertBatch(batch, dtype, reader.file)
      if (targets) {
        vectors ??= await NpyStreamWriter.create(targets.vectors, dtype, batch.d)
        await vectors.append(values, batch.rows)
        if (batch.ids) {
          ids ??= await NpyStreamWriter.create(targets.ids, 'int32', 3)
          await ids.append(batch.ids, batch.rows)
        }
      }
      stats.add(values, batch.rows, batch.d)
      report()
    }
    options.signal?.throwIfAborted()
    await vectors?.finish()
    await ids?.finish()
    if (targets && names()) await writePictureNames(targets.pictureNames, names() as string[])
  } catch (err) {
    await vectors?.abort()
    await ids?.abort()
    throw err
  }
  options.onProgress?.({ bytesRead: reader.totalBytes, totalBytes: reader.totalBytes, rows: stats.n })
  return {
    stats: stats.finish({
      dtype: dtype ?? reader.dtype(),
      format: reader.format,
      bytes: reader.totalBytes,
      hasIds: reader.hasIds,
      notes: reader.notes,
    }),
    wroteIds: ids !== null,
    wrotePictureNames: targets !== null && names() !== null,
  }
}

/**
 * Converts a batch's values to `dtype`: uint8 widens to float32 exactly; float32 narrows to
 * uint8 only when every value is an integer in [0, 255] (else VALUE_OUT_OF_RANGE naming the row).
 */
export function convertBatch(batch: RowBatch, dtype: VectorDtype, file: string): Float32Array | Uint8Array {
  const { values, d } = batch
  if (dtype === 'float32') return values instanceof Float32Array ? values : Float32Array.from(values)
  if (values instanceof Uint8Array) return values
  const out = new Uint8Array(values.length)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (!(v >= 0 && v <= 255 && Number.isInteger(v))) {
      const r = Math.floor(i / d)
      const where = batch.lines ? { file, line: batch.lines[r] } : { file, row: batch.firstRow + r }
      throw formatError(
        'VALUE_OUT_OF_RANGE',
        `column ${i - r * d} is ${v}; uint8 needs integers in [0, 255]`,
        where,
      )
    }
    out[i] = v
  }
  return out
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}

/**
 * Parses and validates `file`, writes `destDir/vectors.npy` (+ `destDir/ids.npy` when the source
 * has ids) atomically (destDir must not exist; it is created by renaming a temp dir), and
 * returns the stats. On any error (or abort) neither destDir nor the temp dir remains.
 */
export async function importToStore(
  file: string,
  destDir: string,
  options: ImportOptions = {},
): Promise<VectorStats> {
  if (await exists(destDir))
    throw new CodebookError(
      'DESTINATION_EXISTS',
      `${destDir} already exists; imports never overwrite a dataset`,
    )
  const reader = await openVectorReader(file, options)
  const tmp = tempSibling(destDir)
  await mkdir(tmp)
  try {
    const { stats } = await runDatasetPass(reader, options, {
      vectors: join(tmp, STORE_VECTORS),
      ids: join(tmp, STORE_IDS),
      pictureNames: join(tmp, STORE_PICTURE_NAMES),
    })
    await rename(tmp, destDir)
    return stats
  } catch (err) {
    await rm(tmp, { recursive: true, force: true })
    throw err
  }
}

/** Same pass as `importToStore` without writing anything: validates `file` and returns its stats. */
export async function inspectFile(
  file: string,
  options: Omit<ImportOptions, 'dtype'> = {},
): Promise<VectorStats> {
  const reader = await openVectorReader(file, options)
  return (await runDatasetPass(reader, options, null)).stats
}

/** The ids file `convertToNpy` writes beside `out`: `x.npy` → `x.ids.npy`. */
export function idsPathFor(out: string): string {
  return `${out.endsWith('.npy') ? out.slice(0, -4) : out}.ids.npy`
}

/** The picture-name table `convertToNpy` writes beside `out` when picture ids are names: `x.npy` → `x.picture-names.txt`. */
export function pictureNamesPathFor(out: string): string {
  return `${out.endsWith('.npy') ? out.slice(0, -4) : out}.picture-names.txt`
}

/**
 * Converts `file` to the .npy `out` (and `idsPathFor(out)` when the source has ids, plus
 * `pictureNamesPathFor(out)` when its picture ids are names), each written
 * to a temporary sibling and renamed on success, overwriting earlier outputs. A stale ids file
 * from an earlier conversion is removed when the new source has no ids, so the pair never disagrees.
 */
export async function convertToNpy(
  file: string,
  out: string,
  options: ImportOptions = {},
): Promise<{ stats: VectorStats; idsFile: string | null }> {
  const reader = await openVectorReader(file, options)
  const namesFile = pictureNamesPathFor(out)
  const targets = {
    vectors: tempSibling(out),
    ids: tempSibling(idsPathFor(out)),
    pictureNames: tempSibling(namesFile),
  }
  try {
    const { stats, wroteIds, wrotePictureNames } = await runDatasetPass(reader, options, targets)
    await rename(targets.vectors, out)
    if (wroteIds) await rename(targets.ids, idsPathFor(out))
    else await rm(idsPathFor(out), { force: true })
    if (wrotePictureNames) await rename(targets.pictureNames, namesFile)
    else await rm(namesFile, { force: true })
    return { stats, idsFile: wroteIds ? idsPathFor(out) : null }
  } catch (err) {
    await Promise.all(Object.values(targets).map((t) => rm(t, { force: true })))
    throw err
  }
}

/** Rows of a stored dataset: `n` is the dataset's total row count; `values` holds the rows read (row-major). */
export interface StoredRows {
  n: number
  d: number
  dtype: VectorDtype
  values: Float32Array | Uint8Array
  ids: Int32Array | null
}

/**
 * Reads rows [start, start + count) of a stored dataset directory (as written by importToStore).
 * The range is clipped at n, so asking for more rows than remain returns what there is.
 */
export async function readStoredRows(dir: string, start: number, count: number): Promise<StoredRows> {
  const vec = await openNpyFile(join(dir, STORE_VECTORS), ['float32', 'uint8'])
  try {
    if (!Number.isInteger(start) || start < 0 || start > vec.n)
      throw new RangeError(`start ${start} is outside [0, ${vec.n}] of ${dir}`)
    const take = Math.max(0, Math.min(count, vec.n - start))
    const values = (await vec.readRows(start, take)) as Float32Array | Uint8Array
    let ids: Int32Array | null = null
    const idsFile = join(dir, STORE_IDS)
    if (await exists(idsFile)) {
      const idf = await openNpyFile(idsFile, ['int32'])
      try {
        ids = (await idf.readRows(start, take)) as Int32Array
      } finally {
        await idf.close()
      }
    }
    return { n: vec.n, d: vec.d, dtype: vec.dtype as VectorDtype, values, ids }
  } finally {
    await vec.close()
  }
}

/** A .npy of float32 or uint8 open for random row access. */
export interface OpenNpy {
  n: number
  d: number
  dtype: VectorDtype
  headerBytes: number
  readRows(start: number, count: number): Promise<Float32Array | Uint8Array>
  close(): Promise<void>
}

/** Opens a float32/uint8 .npy file for random row access without reading all of it. */
export async function openNpy(file: string): Promise<OpenNpy> {
  const f = await openNpyFile(file, ['float32', 'uint8'])
  return {
    n: f.n,
    d: f.d,
    dtype: f.dtype as VectorDtype,
    headerBytes: f.headerBytes,
    readRows: async (start, count) => (await f.readRows(start, count)) as Float32Array | Uint8Array,
    close: () => f.close(),
  }
}
