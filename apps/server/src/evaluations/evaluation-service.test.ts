import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { evaluateVocabularies, loadLabelledImages, readVocabularyFile } from '@codebook/runtime/evaluation'
import { denseHog } from '@codebook/runtime/images'
import { Dataset, ErrorBody, Evaluation, EvaluationList, ImageSet, Run } from '@codebook/shared'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import yazl from 'yazl'
import { DIGITS_PNG } from '../datasets/demo-seed.ts'
import { type RunningServer, startServer } from '../start-server.ts'
import { listenToJobs } from '../test-support/job-listener.ts'
import { hogText, makeVectors, type TestVectors } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'
import { createEvaluationRepo } from './evaluation-repo.ts'
import { setIndex } from './evaluation-service.ts'

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** PIDs of the live child processes of `pid` (procps `ps`). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.trim())
      .map(Number)
  } catch {
    return [] // ps exits 1 when there is none
  }
}

const GRID = { kind: 'grid', file: DIGITS_PNG, cellWidth: 20, cellHeight: 20, rowsPerClass: 5 } as const

describe.each(testDrivers())('evaluations on $name', (driver) => {
  let server: RunningServer
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let db: Awaited<ReturnType<typeof driver.create>>
  let imageSetId: string

  async function post(path: string, body?: unknown): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...authHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  }

  async function get(id: string): Promise<Evaluation> {
    return Evaluation.parse(await (await fetch(`${server.url}/api/evaluations/${id}`)).json())
  }

  beforeAll(async () => {
    home = await makeTempHome()
    db = await driver.create()
    server = await startServer(testConfig(home.home, db.databaseUrl))
    const res = await fetch(`${server.url}/api/image-sets?name=digits&kind=grid&grid=20x20&rowsPerClass=5`, {
      method: 'PUT',
      headers: { ...authHeaders, 'content-type': 'image/png' },
      body: await readFile(DIGITS_PNG),
    })
    expect(res.status).toBe(201)
    imageSetId = ImageSet.parse(await res.json()).id
  })
  afterAll(async () => {
    await server?.close()
    await db.drop()
    await home.remove()
  })

  it('runs to the runtime evaluate() of the same parameters, streaming state, progress and results in order', async () => {
    const client = await listenToJobs(server.url, 'evaluation')
    const delay = monitorEventLoopDelay({ resolution: 10 })
    try {
      const params = { imageSetId, k: [8, 16], limitPerClass: 20, seed: 3 }
      delay.enable()
      const res = await post('/api/evaluations', params)
      expect(res.status).toBe(201)
      const queued = Evaluation.parse(await res.json())
      expect(await client.join(queued.id)).toMatchObject({ ok: true })
      expect(queued).toMatchObject({
        status: 'queued',
        progress: 0,
        results: [],
        imageSetName: 'digits',
        classes: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
        params: { k: [8, 16], patch: 8, stride: 4, cell: 4, bins: 8, split: 0.5, seed: 3, limitPerClass: 20 },
      })
      const done = await server.app.evaluations.settled(queued.id)
      delay.disable()
      expect(done.error).toBeNull()
      expect(done.status).toBe('succeeded')
      expect(done.progress).toBe(1)
      expect(done.startedAt).not.toBeNull()
      expect(done.finishedAt).not.toBeNull()
      // The server's loop stays responsive: the work runs in a child process.
      console.log(
        `event-loop delay during the evaluation: p50 ${(delay.percentile(50) / 1e6).toFixed(1)} ms, ` +
          `p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms, max ${(delay.max / 1e6).toFixed(1)} ms`,
      )
      expect(delay.percentile(99) / 1e6).toBeLessThan(100)

      // Second path: the runtime pipeline in this process on the same images, parameters and seed.
      const direct = await evaluateVocabularies({
        source: { ...GRID, limitPerClass: 20 },
        ks: [8, 16],
        hog: { patch: 8, stride: 4, cell: 4, bins: 8 },
        trainFraction: 0.5,
        seed: 3,
      })
      expect(done.results.map((r) => r.k)).toEqual([8, 16])
      for (const [i, r] of done.results.entries()) {
        const d = direct.results[i]!
        expect(r.accuracy).toBe(d.accuracy)
        expect(r.confusion).toEqual(d.confusion)
        expect(r.perClass).toEqual(d.perClass.map((v) => (Number.isNaN(v) ? null : v)))
        expect([r.trainImages, r.testImages]).toEqual([100, 100])
        expect(r.misclassified.length).toBe(Math.min(20, 100 - Math.round(d.accuracy * 100)))
        expect(r.misclassified.map((m) => [m.trueLabel, m.predicted])).toEqual(
          d.misclassified.map((m) => [m.label, m.predicted]),
        )
      }

      // Misclassified indices address the whole set: the PNG served for one is the evaluated image.
      const evaluated = await loadLabelledImages({ ...GRID, limitPerClass: 20 })
      // Every one of them, so classes past the first (where set index ≠ evaluated index) are covered.
      for (const [i, r] of done.results.entries()) {
        const imageOf = direct.results[i]!.misclassified
        expect(new Set(r.misclassified.map((m) => m.trueLabel)).size).toBeGreaterThan(1)
        for (const [j, m] of r.misclassified.entries()) {
          const png = await fetch(`${server.url}/api/image-sets/${imageSetId}/images/${m.index}.png`)
          expect(png.status).toBe(200)
          const pixels = Array.from(
            await sharp(Buffer.from(await png.arrayBuffer()))
              .greyscale()
              .raw()
              .toBuffer(),
          )
          const expected = evaluated.images[imageOf[j]!.image]!.pixels
          expect(pixels).toEqual(Array.from(expected, (v) => Math.round(v * 255)))
        }
      }

      // Events: state queued → running, progress (fractions never decreasing) and one result per k, state succeeded last.
      await until(
        () => client.events.some((e) => e.type === 'state' && e.data.status === 'succeeded'),
        'final state',
      )
      const mine = client.events.filter((e) => e.id === queued.id)
      const kinds = mine.map((e) =>
        e.type === 'state'
          ? `state:${e.data.status}`
          : e.type === 'result'
            ? `result:${e.data.k}`
            : 'progress',
      )
      expect(kinds.slice(0, 2)).toEqual(['state:queued', 'state:running'])
      expect(kinds.at(-1)).toBe('state:succeeded')
      expect(kinds.filter((k) => k !== 'progress')).toEqual([
        'state:queued',
        'state:running',
        'result:8',
        'result:16',
        'state:succeeded',
      ])
      const progress = mine.flatMap((e) => (e.type === 'progress' ? [e.data] : []))
      const fractions = progress.map((p) => p.fraction)
      expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
      expect(new Set(progress.map((p) => p.phase))).toEqual(
        new Set(['hog', 'kmeans', 'encode', 'train', 'test']),
      )
      // The k = 16 work comes after the k = 8 result.
      const firstResult = kinds.indexOf('result:8')
      expect(mine.slice(firstResult).some((e) => e.type === 'progress' && e.data.k === 16)).toBe(true)
      expect(mine.slice(0, firstResult).some((e) => e.type === 'progress' && e.data.k === 16)).toBe(false)
      const stored = mine.filter((e) => e.type === 'result').map((e) => e.data)
      expect(stored).toEqual(done.results)

      const list = EvaluationList.parse(await (await fetch(`${server.url}/api/evaluations`)).json())
      expect(list.evaluations[0]!.id).toBe(queued.id)
      expect(server.app.evaluations.childPid(queued.id)).toBeUndefined()
    } finally {
      delay.disable()
      client.socket.close()
    }
  }, 180_000)

  it('evaluates a zip image set in its class folders, as the runtime does the same images cut from the grid', async () => {
    // Digits 0…9, the first 2 cells of each of their 5 grid rows: the grid's row-major order, as c/jjjj.png.
    const zip = new yazl.ZipFile()
    for (let c = 0; c < 10; c++)
      for (let j = 0; j < 10; j++) {
        const row = 5 * c + Math.floor(j / 2)
        const cell = await sharp(DIGITS_PNG)
          .extract({ left: (j % 2) * 20, top: row * 20, width: 20, height: 20 })
          .png()
          .toBuffer()
        zip.addBuffer(cell, `${c}/${String(j).padStart(4, '0')}.png`)
      }
    zip.end()
    const chunks: Buffer[] = []
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
    const put = await fetch(`${server.url}/api/image-sets?name=digits-zip&kind=zip`, {
      method: 'PUT',
      headers: { ...authHeaders, 'content-type': 'application/zip' },
      body: Buffer.concat(chunks),
    })
    expect(put.status).toBe(201)
    const set = ImageSet.parse(await put.json())
    expect(set).toMatchObject({ kind: 'zip', count: 100 })

    const res = await post('/api/evaluations', { imageSetId: set.id, k: [4, 8] })
    const done = await server.app.evaluations.settled(Evaluation.parse(await res.json()).id)
    expect(done.status).toBe('succeeded')
    const direct = await evaluateVocabularies({
      source: { ...GRID, columns: 2 },
      ks: [4, 8],
      hog: { patch: 8, stride: 4, cell: 4, bins: 8 },
      trainFraction: 0.5,
      seed: 1,
    })
    expect(done.results.map((r) => [r.k, r.accuracy, r.confusion])).toEqual(
      direct.results.map((r) => [r.k, r.accuracy, r.confusion]),
    )
    expect(done.results[0]!.misclassified.map((m) => m.index)).toEqual(
      direct.results[0]!.misclassified.map((m) => m.image),
    )
  }, 120_000)

  /** Uploads vectors as a dataset, runs K-means on it to the end and returns the run's vocabulary id. */
  async function learnedVocabulary(name: string, vectors: TestVectors, k: number): Promise<string> {
    const up = await fetch(`${server.url}/api/datasets?name=${name}&format=hog-text&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'text/plain' },
      body: hogText(vectors),
    })
    expect(up.status).toBe(201)
    const datasetId = Dataset.parse(await up.json()).id
    const created = await post('/api/runs', {
      datasetId,
      k,
      maxIterations: 5,
      workers: 1,
      kernel: 'reference',
      tol: 0,
    })
    expect(created.status).toBe(201)
    const run = await server.app.runs.settled(Run.parse(await created.json()).id)
    expect(run.status).toBe('succeeded')
    return run.vocabularyId!
  }

  it('evaluates a stored vocabulary (no k list) as the runtime does with its centroids; unknown id 404, wrong d 400', async () => {
    // The vocabulary is learned by a run on the dense HOG patches of 200 digits (3,200 × 32).
    const { images } = await loadLabelledImages({ ...GRID, limitPerClass: 20 })
    const hog = { patch: 8, stride: 4, cell: 4, bins: 8 }
    const patches = images.map((im) => denseHog(im, hog))
    const n = patches.reduce((sum, p) => sum + p.positions.length / 2, 0)
    const vectors: TestVectors = { n, d: 32, values: new Float32Array(n * 32), ids: new Int32Array(n * 3) }
    let row = 0
    patches.forEach((p, image) => {
      vectors.values.set(p.vectors, row * 32)
      for (let i = 0; i < p.positions.length / 2; i++, row++)
        vectors.ids.set([image, p.positions[2 * i]!, p.positions[2 * i + 1]!], row * 3)
    })
    const vocabularyId = await learnedVocabulary('digit-patches', vectors, 12)

    const client = await listenToJobs(server.url, 'evaluation')
    const res = await post('/api/evaluations', {
      imageSetId,
      vocabularyIds: [vocabularyId],
      limitPerClass: 20,
    })
    expect(res.status, await res.clone().text()).toBe(201)
    const queued = Evaluation.parse(await res.json())
    expect(queued.params).toMatchObject({ k: [], vocabularyIds: [vocabularyId] })
    // Joined after the evaluation may have started: the feed replays what came before.
    expect(await client.join(queued.id)).toMatchObject({ ok: true })
    const done = await server.app.evaluations.settled(queued.id)
    expect(done.error).toBeNull()
    expect(done.status).toBe('succeeded')
    expect(done.results).toHaveLength(1)
    const [row0] = done.results
    expect(row0).toMatchObject({ k: 12, vocabularyId, trainImages: 100, testImages: 100 })
    expect(row0!.accuracy).toBeGreaterThan(0.2) // chance is 0.1
    // Progress names the stored vocabulary; no k-means is reported for it.
    await until(
      () => client.events.some((e) => e.type === 'state' && e.data.status === 'succeeded'),
      'the last state',
    )
    client.socket.close()
    const messages = client.events.flatMap((e) =>
      e.type === 'progress' && e.id === queued.id ? [e.data.message] : [],
    )
    expect(messages).toContain(`vocabulary ${vocabularyId} (k = 12): stored centroids`)
    expect(messages.some((m) => m.includes('k-means'))).toBe(false)

    // The runtime given the same centroids file gives the same result.
    const given = await readVocabularyFile(
      join(home.home, 'vocabularies', `${vocabularyId}.npy`),
      vocabularyId,
    )
    const direct = await evaluateVocabularies({
      source: { ...GRID, limitPerClass: 20 },
      ks: [],
      vocabularies: [given],
      hog,
    })
    expect(row0!.accuracy).toBe(direct.results[0]!.accuracy)
    expect(row0!.confusion).toEqual(direct.results[0]!.confusion)

    const unknown = await post('/api/evaluations', { imageSetId, k: [8], vocabularyIds: ['nope'] })
    expect(unknown.status).toBe(404)
    expect(ErrorBody.parse(await unknown.json()).code).toBe('VOCABULARY_NOT_FOUND')

    const narrow = await learnedVocabulary('narrow', makeVectors(200, 36, 5), 4)
    const mismatch = await post('/api/evaluations', { imageSetId, vocabularyIds: [narrow] })
    expect(mismatch.status).toBe(400)
    const body = ErrorBody.parse(await mismatch.json())
    expect(body.code).toBe('VOCABULARY_DIMENSION_MISMATCH')
    expect(body.message).toContain('d = 36')
    expect(body.message).toContain('d = 32')
    expect(body.message).toContain('patch 8, cell 4, bins 9')

    const tooMany = await post('/api/evaluations', { imageSetId, vocabularyIds: Array(9).fill(vocabularyId) })
    expect(tooMany.status).toBe(400)
    const twice = await post('/api/evaluations', { imageSetId, vocabularyIds: [vocabularyId, vocabularyId] })
    expect(twice.status).toBe(400)
  }, 120_000)

  it('rejects bad requests with coded errors', async () => {
    const cases: [unknown, number, string][] = [
      [{ imageSetId: 'nope', k: [8] }, 404, 'IMAGE_SET_NOT_FOUND'],
      [{ imageSetId, k: [8], patch: 24 }, 400, 'IMAGE_TOO_SMALL'],
      [{ imageSetId, k: [8], patch: 8, cell: 3 }, 400, 'BAD_HOG_PARAMS'],
    ]
    for (const [body, status, code] of cases) {
      const res = await post('/api/evaluations', body)
      expect(res.status, code).toBe(status)
      expect(ErrorBody.parse(await res.json()).code).toBe(code)
    }
    for (const body of [
      { imageSetId, k: [] },
      { imageSetId, k: Array(17).fill(4) },
      { imageSetId, k: [8], split: 1 },
    ]) {
      expect((await post('/api/evaluations', body)).status).toBe(400)
    }
    expect((await fetch(`${server.url}/api/evaluations/nope`)).status).toBe(404)
    const noAuth = await fetch(`${server.url}/api/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ imageSetId, k: [8] }),
    })
    expect(noAuth.status).toBe(401)
  })

  it('queues evaluations one at a time and cancels a running one, stopping its processes', async () => {
    const client = await listenToJobs(server.url, 'evaluation')
    try {
      const big = Evaluation.parse(
        await (await post('/api/evaluations', { imageSetId, k: [256, 512] })).json(),
      )
      const small = Evaluation.parse(
        await (await post('/api/evaluations', { imageSetId, k: [4], limitPerClass: 4 })).json(),
      )
      const dropped = Evaluation.parse(
        await (await post('/api/evaluations', { imageSetId, k: [4], limitPerClass: 4 })).json(),
      )
      for (const e of [big, small, dropped]) expect(await client.join(e.id)).toMatchObject({ ok: true })
      await until(
        () =>
          client.events.some((e) => e.id === big.id && e.type === 'progress' && e.data.phase === 'kmeans'),
        'k-means of the big evaluation',
      )
      expect((await get(small.id)).status).toBe('queued')
      const pid = server.app.evaluations.childPid(big.id)!
      expect(isAlive(pid)).toBe(true)
      // The child's own k-means worker process(es).
      const workers = childrenOf(pid)
      expect(workers.length).toBeGreaterThanOrEqual(1)
      // A set in use cannot be deleted.
      const del = await fetch(`${server.url}/api/image-sets/${imageSetId}`, {
        method: 'DELETE',
        headers: authHeaders,
      })
      expect(del.status).toBe(409)

      const droppedRes = await post(`/api/evaluations/${dropped.id}/cancel`)
      expect(Evaluation.parse(await droppedRes.json()).status).toBe('cancelled')
      const cancelled = Evaluation.parse(await (await post(`/api/evaluations/${big.id}/cancel`)).json())
      expect(cancelled).toMatchObject({ status: 'cancelled', error: { code: 'EVALUATION_CANCELLED' } })
      expect(isAlive(pid)).toBe(false)
      await until(() => !workers.some(isAlive), 'the k-means workers to exit', 5_000)
      const again = await post(`/api/evaluations/${big.id}/cancel`)
      expect(again.status).toBe(409)
      expect(ErrorBody.parse(await again.json()).code).toBe('EVALUATION_FINISHED')

      // The queued one runs next, to the end.
      expect((await server.app.evaluations.settled(small.id)).status).toBe('succeeded')
      expect((await get(dropped.id)).status).toBe('cancelled')
      const states = client.events
        .filter((e) => e.type === 'state')
        .map(
          (e) =>
            `${e.id === big.id ? 'big' : e.id === small.id ? 'small' : 'dropped'}:${(e.data as Evaluation).status}`,
        )
      expect(states.indexOf('small:running')).toBeGreaterThan(states.indexOf('big:cancelled'))
    } finally {
      client.socket.close()
    }
  }, 180_000)

  it('marks a running evaluation interrupted when the server stops, and one left running by a crash at the next start', async () => {
    const running = Evaluation.parse(await (await post('/api/evaluations', { imageSetId, k: [512] })).json())
    await until(async () => (await get(running.id)).status === 'running', 'running')
    const pid = await (async () => {
      await until(() => server.app.evaluations.childPid(running.id) !== undefined, 'child')
      return server.app.evaluations.childPid(running.id)!
    })()
    // A crash leaves a row `running` with no process: fake one next to the real one.
    const repo = createEvaluationRepo(server.app.db)
    const stored = await repo.get(running.id)
    await repo.insert('crashed', 'crashed', stored!.params)
    expect(await repo.markRunning('crashed')).toBeDefined()

    await server.close()
    await until(() => !isAlive(pid), 'the child to exit', 10_000)
    server = await startServer(testConfig(home.home, db.databaseUrl))
    const after = await get(running.id)
    expect(after).toMatchObject({ status: 'interrupted', error: { code: 'INTERRUPTED' } })
    expect(await get('crashed')).toMatchObject({ status: 'interrupted', error: { code: 'INTERRUPTED' } })
  }, 120_000)
})

describe('setIndex', () => {
  it('maps indices of a per-class-limited set back to the whole set', () => {
    // Classes of 3, 5 and 2 images, at most 2 per class: evaluated [a0 a1 b0 b1 c0 c1] → set [0 1 3 4 8 9].
    expect([0, 1, 2, 3, 4, 5].map((i) => setIndex(i, [3, 5, 2], 2))).toEqual([0, 1, 3, 4, 8, 9])
    expect(setIndex(7, [3, 5, 2], null)).toBe(7)
  })
})
