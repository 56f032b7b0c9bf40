import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openNpy } from '@codebook/runtime/formats'
import { Dataset, Run, VocabularyList, VocabularySummary } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { bruteForceAssign, parseCsv, parseStructuredNpy } from '../test-support/assignments.ts'
import { hogText, makeVectors } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

const data = makeVectors(600, 5, 23)

describe('vocabularies API', () => {
  let home: { home: string; remove(): Promise<void> }
  let server: RunningServer
  let datasetId: string
  /** Two succeeded runs on the same dataset (k = 4 and 6). */
  const runs: Run[] = []

  async function json(path: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${server.url}${path}`, init)
    return { status: res.status, body: res.status === 204 ? null : await res.json() }
  }

  async function download(path: string): Promise<Buffer> {
    const res = await fetch(`${server.url}${path}`)
    expect(
      res.status,
      await res
        .clone()
        .text()
        .then((t) => t.slice(0, 200)),
    ).toBe(200)
    return Buffer.from(await res.arrayBuffer())
  }

  beforeAll(async () => {
    home = await makeTempHome()
    server = await startServer(testConfig(home.home, undefined))
    const up = await json('/api/datasets?name=pictures&format=hog-text&wait=true', {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'text/plain' },
      body: hogText(data),
    })
    expect(up.status).toBe(201)
    datasetId = Dataset.parse(up.body).id
    for (const k of [4, 6]) {
      const created = await json('/api/runs', {
        method: 'POST',
        headers: { ...authHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({ datasetId, k, maxIterations: 3, workers: 1, kernel: 'reference', tol: 0 }),
      })
      expect(created.status).toBe(201)
      const run = await server.app.runs.settled(Run.parse(created.body).id)
      expect(run.status).toBe('succeeded')
      runs.push(run)
    }
  })
  afterAll(async () => {
    await server.close()
    await home.remove()
  })

  it('lists every vocabulary newest first with its run, dataset, inertia and size; one by id; 404 otherwise', async () => {
    const list = VocabularyList.parse((await json('/api/vocabularies')).body).vocabularies
    expect(list.map((v) => v.runId)).toEqual([runs[1]!.id, runs[0]!.id])
    const [newest] = list
    expect(newest).toMatchObject({
      id: runs[1]!.vocabularyId,
      k: 6,
      d: data.d,
      datasetId,
      datasetName: 'pictures',
      datasetExists: true,
      inertia: runs[1]!.inertia,
      sizeBytes: 128 + 6 * data.d * 4,
      assignmentsBytes: null,
      // The fixture's picture ids are numbers: no name table.
      pictureNames: false,
    })
    const one = await json(`/api/vocabularies/${runs[1]!.vocabularyId}`)
    expect(VocabularySummary.parse(one.body)).toEqual(newest)
    const missing = await json('/api/vocabularies/nope')
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ code: 'VOCABULARY_NOT_FOUND' })
  })

  it('exports the assignments as npy and csv, equal to a brute-force assignment, with the picture ids; computed once', async () => {
    const id = runs[0]!.vocabularyId!
    // The oracle uses the vocabulary as downloaded and the vectors as uploaded.
    await writeFile(
      join(home.home, 'centroids.npy'),
      await download(`/api/vocabularies/${id}/export?format=npy`),
    )
    const f = await openNpy(join(home.home, 'centroids.npy'))
    const centroids = Float32Array.from(await f.readRows(0, f.n))
    await f.close()
    const oracle = bruteForceAssign(data.values, centroids, data.d)

    // Two requests at once share one computation.
    const [npyBytes, csvBytes] = await Promise.all([
      download(`/api/vocabularies/${id}/assignments?format=npy`),
      download(`/api/vocabularies/${id}/assignments?format=csv`),
    ])
    const npy = parseStructuredNpy(npyBytes)
    const csv = parseCsv(csvBytes.toString('utf8'))
    for (const parsed of [npy, csv]) {
      expect(parsed.fields).toEqual(['row', 'word', 'distance_sq', 'picture', 'picture_row', 'picture_col'])
      expect(parsed.columns.word).toEqual(oracle.words)
      expect(parsed.columns.distance_sq).toEqual(oracle.distances)
      expect(parsed.columns.picture).toEqual(Array.from({ length: data.n }, (_, i) => data.ids[i * 3]))
      expect(parsed.columns.picture_col).toEqual(
        Array.from({ length: data.n }, (_, i) => data.ids[i * 3 + 2]),
      )
    }
    const res = await fetch(`${server.url}/api/vocabularies/${id}/assignments?format=csv`)
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="assignments-${id}.csv"`)
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(Buffer.from(await res.arrayBuffer())).toEqual(csvBytes)
    // Cached under the run's folder, counted in the summary.
    expect(existsSync(join(home.home, 'runs', runs[0]!.id, 'assignments', 'assignments.npy'))).toBe(true)
    const summary = VocabularySummary.parse((await json(`/api/vocabularies/${id}`)).body)
    expect(summary.assignmentsBytes).toBe(npyBytes.length + csvBytes.length)

    const bad = await json(`/api/vocabularies/${id}/assignments?format=xml`)
    expect(bad.status).toBe(400)
  })

  it('after the dataset is deleted: listed as deleted, cached assignments still served, others 409 DATASET_DELETED', async () => {
    const del = await json(`/api/datasets/${datasetId}`, { method: 'DELETE', headers: authHeaders })
    expect(del.status).toBe(204)
    const list = VocabularyList.parse((await json('/api/vocabularies')).body).vocabularies
    for (const v of list) expect(v).toMatchObject({ datasetId, datasetName: null, datasetExists: false })
    await download(`/api/vocabularies/${runs[0]!.vocabularyId}/assignments?format=npy`)
    const uncached = await json(`/api/vocabularies/${runs[1]!.vocabularyId}/assignments?format=csv`)
    expect(uncached.status).toBe(409)
    expect(uncached.body).toMatchObject({ code: 'DATASET_DELETED' })
    expect(JSON.stringify(uncached.body)).not.toContain(home.home)
  })

  it('deletes with the token only: record, centroids and cached assignments go, the run stays without it', async () => {
    const run = runs[0]!
    const id = run.vocabularyId!
    const refused = await json(`/api/vocabularies/${id}`, { method: 'DELETE' })
    expect(refused.status).toBe(401)
    expect((await json(`/api/vocabularies/${id}`)).status).toBe(200)

    const deleted = await json(`/api/vocabularies/${id}`, { method: 'DELETE', headers: authHeaders })
    expect(deleted.status).toBe(204)
    expect((await json(`/api/vocabularies/${id}`)).status).toBe(404)
    expect((await json(`/api/vocabularies/${id}/assignments`)).status).toBe(404)
    expect(existsSync(join(home.home, 'vocabularies', `${id}.npy`))).toBe(false)
    expect(existsSync(join(home.home, 'runs', run.id, 'assignments'))).toBe(false)
    expect(Run.parse((await json(`/api/runs/${run.id}`)).body)).toMatchObject({
      status: 'succeeded',
      vocabularyId: null,
    })
    const list = VocabularyList.parse((await json('/api/vocabularies')).body).vocabularies
    expect(list.map((v) => v.id)).toEqual([runs[1]!.vocabularyId])
    expect((await json(`/api/vocabularies/${id}`, { method: 'DELETE', headers: authHeaders })).status).toBe(
      404,
    )
  })
})
