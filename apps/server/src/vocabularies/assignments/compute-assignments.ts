import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { CodebookError } from '@codebook/runtime/errors'
import { openNpy, readPictureNames, readStoredRows } from '@codebook/runtime/formats'
import { createHamerlyState, type DistanceMatrixKernel, rowDistanceSq } from '@codebook/runtime/kmeans'
import {
  type AssignmentField,
  assignmentFields,
  recordBytes,
  structuredNpyHeader,
} from './assignment-columns.ts'

/** File names inside an assignments folder. */
export const ASSIGNMENTS_NPY = 'assignments.npy'
export const ASSIGNMENTS_CSV = 'assignments.csv'

/** What one computation reads and writes. */
export interface AssignmentJob {
  /** A stored dataset folder (`vectors.npy`, optional `ids.npy`). */
  datasetDir: string
  /** The vocabulary's centroids (k × d float32 .npy). */
  vocabularyFile: string
  /** Folder the results end up in; written as `<outDir>.partial` and renamed when complete. */
  outDir: string
}

/** Dataset rows held at once: about this many bytes of float32 points, whatever d is. */
const CHUNK_BYTES = 8 << 20

/** The temporary folder a computation writes before the rename. */
export function partialDir(outDir: string): string {
  return `${outDir}.partial`
}

/** Writes a whole buffer at the file's current end. */
async function writeAll(fh: FileHandle, data: Uint8Array | string): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  let done = 0
  while (done < bytes.length) done += (await fh.write(bytes, done, bytes.length - done)).bytesWritten
}

/** Nearest centroid of each point, exact (ties to the lowest index), with its float64 squared distance. */
async function nearest(
  points: Float32Array,
  count: number,
  d: number,
  centroids: Float32Array,
  k: number,
  kernel: DistanceMatrixKernel | undefined,
): Promise<{ labels: Int32Array; distances: Float64Array }> {
  // Hamerly's first pass is an exact assignment: the kernel's float32 distances only shortlist,
  // the deciding distances are float64 (see the runtime's CONTEXT, "Exactness").
  const labels =
    k < 2
      ? new Int32Array(count)
      : (await createHamerlyState(points, count, d, { dense: kernel }).assign(centroids, k)).labels
  const distances = new Float64Array(count)
  for (let i = 0; i < count; i++) distances[i] = rowDistanceSq(points, i, centroids, labels[i]!, d)
  return { labels, distances }
}

/** A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/**
 * The .npy records and CSV lines of rows [start, start + count). With `pictureNames` (HOG text
 * whose picture ids were names), the CSV's `picture` column holds the name; the .npy keeps the
 * index into the dataset's picture-name table (a fixed-width record cannot hold a name).
 */
function encodeChunk(
  fields: readonly AssignmentField[],
  start: number,
  count: number,
  labels: Int32Array,
  distances: Float64Array,
  ids: Int32Array | null,
  pictureNames: readonly string[] | null,
): { records: Buffer; csv: string } {
  const size = recordBytes(fields)
  const records = Buffer.alloc(count * size)
  let csv = ''
  for (let i = 0; i < count; i++) {
    const at = i * size
    records.writeBigInt64LE(BigInt(start + i), at)
    records.writeInt32LE(labels[i]!, at + 8)
    records.writeDoubleLE(distances[i]!, at + 12)
    let line = `${start + i},${labels[i]},${distances[i]}`
    if (ids !== null) {
      for (let j = 0; j < 3; j++) {
        const id = ids[i * 3 + j]!
        records.writeInt32LE(id, at + 20 + 4 * j)
        line += `,${j === 0 && pictureNames ? csvField(pictureNames[id] ?? String(id)) : id}`
      }
    }
    csv += `${line}\n`
  }
  return { records, csv }
}

/**
 * Assigns every vector of a stored dataset to its nearest centroid and writes
 * `assignments.npy` and `assignments.csv` (see `AssignmentFormat` in `@codebook/shared`) into
 * `job.outDir`, reading the dataset a bounded chunk at a time (`chunkRows`, default ≈ 8 MiB of points). CPU-bound: call it off the
 * server's event loop (the assignment child process does).
 * @throws CodebookError `DATASET_DELETED` when the dataset's files are gone, `ASSIGNMENTS_SHAPE_MISMATCH`
 *   when the vocabulary's d is not the dataset's.
 */
export async function computeAssignments(
  job: AssignmentJob,
  kernel?: DistanceMatrixKernel,
  options: { chunkRows?: number } = {},
): Promise<{ n: number; hasIds: boolean }> {
  const vocabulary = await openNpy(job.vocabularyFile)
  let centroids: Float32Array
  try {
    centroids = Float32Array.from(await vocabulary.readRows(0, vocabulary.n))
  } finally {
    await vocabulary.close()
  }
  const { n: k } = vocabulary
  const head = await readStoredRows(job.datasetDir, 0, 0).catch((err: unknown) => {
    if (err instanceof CodebookError && err.code === 'FILE_NOT_FOUND')
      throw new CodebookError(
        'DATASET_DELETED',
        'the dataset of this vocabulary was deleted; its vectors are gone',
      )
    throw err
  })
  const { n, d } = head
  if (d !== vocabulary.d)
    throw new CodebookError(
      'ASSIGNMENTS_SHAPE_MISMATCH',
      `the vocabulary has d = ${vocabulary.d} but its dataset has d = ${d}`,
    )
  const hasIds = head.ids !== null
  const pictureNames = hasIds ? await readPictureNames(job.datasetDir) : null
  const fields = assignmentFields(hasIds)
  const tmp = partialDir(job.outDir)
  await rm(tmp, { recursive: true, force: true })
  await mkdir(tmp, { recursive: true })
  const npy = await open(join(tmp, ASSIGNMENTS_NPY), 'w')
  const csv = await open(join(tmp, ASSIGNMENTS_CSV), 'w')
  try {
    await writeAll(npy, structuredNpyHeader(fields, n))
    await writeAll(csv, `${fields.map((f) => f.name).join(',')}\n`)
    const chunkRows = options.chunkRows ?? Math.max(1, Math.floor(CHUNK_BYTES / (4 * d)))
    for (let start = 0; start < n; start += chunkRows) {
      const rows = await readStoredRows(job.datasetDir, start, chunkRows)
      const count = rows.values.length / d
      const points = rows.values instanceof Float32Array ? rows.values : Float32Array.from(rows.values)
      const { labels, distances } = await nearest(points, count, d, centroids, k, kernel)
      const chunk = encodeChunk(fields, start, count, labels, distances, rows.ids, pictureNames)
      await writeAll(npy, chunk.records)
      await writeAll(csv, chunk.csv)
    }
    await Promise.all([npy.sync(), csv.sync()])
  } finally {
    await Promise.all([npy.close(), csv.close()])
  }
  await rm(job.outDir, { recursive: true, force: true })
  await rename(tmp, job.outDir)
  return { n, hasIds }
}
