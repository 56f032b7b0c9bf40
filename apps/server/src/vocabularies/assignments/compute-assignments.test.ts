import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { importToStore, writeNpy } from '@codebook/runtime/formats'
import { createOrtKernel, type OrtKernel } from '@codebook/runtime/kmeans'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bruteForceAssign, parseCsv, parseStructuredNpy } from '../../test-support/assignments.ts'
import { hogText, makeVectors, npyFloat32 } from '../../test-support/payloads.ts'
import { ASSIGNMENTS_CSV, ASSIGNMENTS_NPY, computeAssignments } from './compute-assignments.ts'

const data = makeVectors(700, 6, 5)

/** Centroids from data rows, with centroid 3 a copy of centroid 1: ties must go to 1. */
function centroidsFromRows(rows: number[]): Float32Array {
  const c = new Float32Array(rows.length * data.d)
  for (const [j, r] of rows.entries()) c.set(data.values.subarray(r * data.d, (r + 1) * data.d), j * data.d)
  return c
}

describe('computeAssignments', () => {
  let dir: string
  let kernel: OrtKernel
  const rows = [0, 10, 20, 10, 40, 50, 60]
  const centroids = centroidsFromRows(rows)
  const k = rows.length

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-assign-'))
    await writeFile(join(dir, 'in.txt'), hogText(data))
    await writeFile(join(dir, 'in.npy'), npyFloat32(data))
    await importToStore(join(dir, 'in.txt'), join(dir, 'hog'))
    await importToStore(join(dir, 'in.npy'), join(dir, 'plain'))
    await writeNpy(join(dir, 'vocabulary.npy'), centroids, k, data.d)
    kernel = await createOrtKernel({ intraOpNumThreads: 1 })
  })
  afterAll(async () => {
    await kernel.dispose()
    await rm(dir, { recursive: true, force: true })
  })

  it('gives every vector the brute-force word and distance, with its ids, in npy and csv, over several chunks', async () => {
    const outDir = join(dir, 'out-hog')
    const result = await computeAssignments(
      { datasetDir: join(dir, 'hog'), vocabularyFile: join(dir, 'vocabulary.npy'), outDir },
      kernel,
      { chunkRows: 97 },
    )
    expect(result).toEqual({ n: data.n, hasIds: true })
    expect((await readdir(dir)).filter((f) => f.endsWith('.partial'))).toEqual([])
    const oracle = bruteForceAssign(data.values, centroids, data.d)
    // The duplicate centroid 3 never wins: its twin 1 has the lower index.
    expect(oracle.words.filter((w) => w === 1).length).toBeGreaterThan(0)
    expect(oracle.words).not.toContain(3)

    const npy = parseStructuredNpy(await readFile(join(outDir, ASSIGNMENTS_NPY)))
    const csv = parseCsv(await readFile(join(outDir, ASSIGNMENTS_CSV), 'utf8'))
    const fields = ['row', 'word', 'distance_sq', 'picture', 'picture_row', 'picture_col']
    for (const parsed of [npy, csv]) {
      expect(parsed.fields).toEqual(fields)
      expect(parsed.n).toBe(data.n)
      expect(parsed.columns.row).toEqual(Array.from({ length: data.n }, (_, i) => i))
      expect(parsed.columns.word).toEqual(oracle.words)
      expect(parsed.columns.distance_sq).toEqual(oracle.distances)
      for (const [j, name] of ['picture', 'picture_row', 'picture_col'].entries())
        expect(parsed.columns[name]).toEqual(Array.from({ length: data.n }, (_, i) => data.ids[i * 3 + j]))
    }
  })

  it('writes picture names (CSV-quoted) in the CSV when the HOG text named its pictures, and their index in the npy', async () => {
    // The same rows, with every picture id turned into a name that needs quoting.
    const named = hogText(data)
      .split('\n')
      .map((line) => line.replace(/^(\d+) /, (_, id: string) => `photo,${id}.jpg `))
      .join('\n')
    await writeFile(join(dir, 'named.txt'), named)
    await importToStore(join(dir, 'named.txt'), join(dir, 'named'))
    const outDir = join(dir, 'out-named')
    await computeAssignments(
      { datasetDir: join(dir, 'named'), vocabularyFile: join(dir, 'vocabulary.npy'), outDir },
      kernel,
    )
    const oracle = bruteForceAssign(data.values, centroids, data.d)
    const lines = (await readFile(join(outDir, ASSIGNMENTS_CSV), 'utf8')).trimEnd().split('\n')
    expect(lines[0]).toBe('row,word,distance_sq,picture,picture_row,picture_col')
    for (let i = 0; i < data.n; i++) {
      const [picture, row, col] = [0, 1, 2].map((j) => data.ids[i * 3 + j])
      expect(lines[i + 1]).toBe(
        `${i},${oracle.words[i]},${oracle.distances[i]},"photo,${picture}.jpg",${row},${col}`,
      )
    }
    const npy = parseStructuredNpy(await readFile(join(outDir, ASSIGNMENTS_NPY)))
    const names = (await readFile(join(dir, 'named', 'picture-names.txt'), 'utf8')).split('\n')
    expect(npy.columns.picture!.map((index) => names[index as number])).toEqual(
      Array.from({ length: data.n }, (_, i) => `photo,${data.ids[i * 3]}.jpg`),
    )
  })

  it('leaves the id columns out for a dataset without ids, and works without a dense kernel', async () => {
    const outDir = join(dir, 'out-plain')
    // 699 rows a chunk: the last chunk holds one row.
    await computeAssignments(
      { datasetDir: join(dir, 'plain'), vocabularyFile: join(dir, 'vocabulary.npy'), outDir },
      undefined,
      { chunkRows: data.n - 1 },
    )
    const npy = parseStructuredNpy(await readFile(join(outDir, ASSIGNMENTS_NPY)))
    expect(npy.fields).toEqual(['row', 'word', 'distance_sq'])
    expect(npy.columns.word).toEqual(bruteForceAssign(data.values, centroids, data.d).words)
  })

  it('reads a uint8 dataset as float values', async () => {
    const bytes = Uint8Array.from({ length: 300 * data.d }, (_, i) => (i * 37) % 256)
    await writeNpy(join(dir, 'bytes.npy'), bytes, 300, data.d)
    await importToStore(join(dir, 'bytes.npy'), join(dir, 'uint8'))
    const byteCentroids = Float32Array.from({ length: 3 * data.d }, (_, i) => (i * 53) % 256)
    await writeNpy(join(dir, 'byte-vocabulary.npy'), byteCentroids, 3, data.d)
    const outDir = join(dir, 'out-uint8')
    await computeAssignments(
      { datasetDir: join(dir, 'uint8'), vocabularyFile: join(dir, 'byte-vocabulary.npy'), outDir },
      kernel,
      { chunkRows: 64 },
    )
    const npy = parseStructuredNpy(await readFile(join(outDir, ASSIGNMENTS_NPY)))
    const oracle = bruteForceAssign(Float32Array.from(bytes), byteCentroids, data.d)
    expect(npy.columns.word).toEqual(oracle.words)
    expect(npy.columns.distance_sq).toEqual(oracle.distances)
  })

  it('answers DATASET_DELETED when the vectors are gone, and ASSIGNMENTS_SHAPE_MISMATCH for another d', async () => {
    const compute = (dataset: string, vocabulary: string) =>
      computeAssignments({
        datasetDir: join(dir, dataset),
        vocabularyFile: join(dir, vocabulary),
        outDir: join(dir, `out-${dataset}-${vocabulary}`),
      })
    await expect(compute('gone', 'vocabulary.npy')).rejects.toMatchObject({ code: 'DATASET_DELETED' })
    await writeNpy(join(dir, 'wide.npy'), new Float32Array(2 * 9), 2, 9)
    await expect(compute('plain', 'wide.npy')).rejects.toMatchObject({ code: 'ASSIGNMENTS_SHAPE_MISMATCH' })
  })
})
