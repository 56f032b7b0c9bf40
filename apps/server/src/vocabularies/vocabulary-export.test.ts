import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openNpy } from '@codebook/runtime/formats'
import { computeInit, lloydReference } from '@codebook/runtime/kmeans'
import { Dataset, Run, VocabularyExportJson, VocabularyList } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

const data = makeVectors(200, 6, 11)
const k = 4

describe('vocabulary export', () => {
  let home: { home: string; remove(): Promise<void> }
  let server: RunningServer
  let run: Run
  let vocabularyId: string

  beforeAll(async () => {
    home = await makeTempHome()
    server = await startServer(testConfig(home.home, undefined))
    const up = await fetch(`${server.url}/api/datasets?name=small&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      body: npyFloat32(data),
    })
    expect(up.status).toBe(201)
    const datasetId = Dataset.parse(await up.json()).id
    const res = await fetch(`${server.url}/api/runs`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ datasetId, k, maxIterations: 3, workers: 1, kernel: 'reference', tol: 0 }),
    })
    expect(res.status).toBe(201)
    run = await server.app.runs.settled(Run.parse(await res.json()).id)
    expect(run.status).toBe('succeeded')
    vocabularyId = run.vocabularyId!
  })
  afterAll(async () => {
    await server.close()
    await home.remove()
  })

  /** Downloads an export, checking it is an attachment named after the vocabulary and format. */
  async function download(format: string): Promise<Response> {
    const res = await fetch(`${server.url}/api/vocabularies/${vocabularyId}/export?format=${format}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="vocabulary-${vocabularyId}.${format}"`,
    )
    return res
  }

  it('lists vocabularies and exports npy, fvecs, csv and json that re-read to the same centroids', async () => {
    const list = VocabularyList.parse(await (await fetch(`${server.url}/api/vocabularies`)).json())
    expect(list.vocabularies).toEqual([
      {
        id: vocabularyId,
        runId: run.id,
        k,
        d: data.d,
        createdAt: expect.any(String),
        datasetId: run.datasetId,
        datasetName: 'small',
        datasetExists: true,
        inertia: run.inertia,
        // npy header (128 bytes as the runtime writes it) + k × d float32.
        sizeBytes: 128 + k * data.d * 4,
        assignmentsBytes: null,
        // The dataset's picture ids are numbers: no picture-names.txt to download.
        pictureNames: false,
      },
    ])

    // Independent oracle: the same seeded k-means++ init and single-process Lloyd.
    const init = await computeInit('kmeans++', data.values, data.values.length / data.d, data.d, k, 1)
    const ref = lloydReference(data.values, data.d, init, {
      maxIterations: 3,
      tol: 0,
      seed: 1,
    })

    // npy: written to disk and read back with the runtime's reader.
    const npyPath = join(home.home, 'export.npy')
    await writeFile(npyPath, Buffer.from(await (await download('npy')).arrayBuffer()))
    const f = await openNpy(npyPath)
    let centroids: Float32Array
    try {
      expect([f.n, f.d]).toEqual([k, data.d])
      centroids = Float32Array.from(await f.readRows(0, k))
    } finally {
      await f.close()
    }
    for (const [i, x] of centroids.entries()) expect(x).toBeCloseTo(ref.centroids[i]!, 4)

    // fvecs, parsed by hand: per centroid an int32 d, then d float32, little-endian.
    const fvecs = Buffer.from(await (await download('fvecs')).arrayBuffer())
    expect(fvecs.length).toBe(k * (4 + 4 * data.d))
    const fromFvecs = new Float32Array(k * data.d)
    for (let r = 0; r < k; r++) {
      const at = r * (4 + 4 * data.d)
      expect(fvecs.readInt32LE(at)).toBe(data.d)
      for (let j = 0; j < data.d; j++) fromFvecs[r * data.d + j] = fvecs.readFloatLE(at + 4 + 4 * j)
    }
    expect(fromFvecs).toEqual(centroids)

    // csv: one line of d comma-separated values per centroid.
    const csv = await (await download('csv')).text()
    const lines = csv.trimEnd().split('\n')
    expect(lines).toHaveLength(k)
    const fromCsv = Float32Array.from(lines.flatMap((line) => line.split(',').map(Number)))
    expect(fromCsv).toEqual(centroids)

    // json: the centroids with the run and its inertia per iteration.
    const jsonRes = await download('json')
    expect(jsonRes.headers.get('content-type')).toMatch(/^application\/json/)
    const json = VocabularyExportJson.parse(await jsonRes.json())
    expect(json.vocabulary).toEqual({ id: vocabularyId, k, d: data.d })
    expect(json.run).toEqual({ id: run.id, params: run.params, datasetId: run.datasetId })
    expect(json.inertiaHistory).toHaveLength(ref.inertia.length)
    for (const [i, x] of json.inertiaHistory.entries()) expect(x).toBeCloseTo(ref.inertia[i]!, 6)
    expect(json.centroids).toHaveLength(k)
    expect(Float32Array.from(json.centroids.flat())).toEqual(centroids)
  })

  it('answers 404 for an unknown vocabulary and 400 for an unknown format', async () => {
    const missing = await fetch(`${server.url}/api/vocabularies/nope/export?format=csv`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ code: 'VOCABULARY_NOT_FOUND' })
    const bad = await fetch(`${server.url}/api/vocabularies/${vocabularyId}/export?format=xml`)
    expect(bad.status).toBe(400)
  })
})
