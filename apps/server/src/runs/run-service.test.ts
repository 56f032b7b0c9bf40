import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { openNpy } from '@codebook/runtime/formats'
import { computeInit, lloydReference } from '@codebook/runtime/kmeans'
import {
  CreateRun,
  Dataset,
  IterationReport,
  JobEventList,
  type JobJoinAck,
  type JobSocketEvent,
  Run,
  type RunEventType,
  RunLogData,
  RunProgressData,
  runEventData,
  serverEventSchemas,
  socketEvents,
} from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { type RunningServer, startServer } from '../start-server.ts'
import { connected, type EventClient, eventClient } from '../test-support/event-client.ts'
import { makeVectors, npyFloat32, type TestVectors } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'
import { createRunRepo } from './run-repo.ts'

/** A socket that records every run's `job:event` it receives, and what did not parse with the shared schemas. */
interface Listener {
  socket: EventClient
  events: JobSocketEvent[]
  /** `seq type: problem` of each event whose envelope or `data` the contract refuses. */
  invalid: string[]
}

async function listen(url: string): Promise<Listener> {
  const socket = eventClient(url)
  const events: JobSocketEvent[] = []
  const invalid: string[] = []
  socket.on(socketEvents.jobEvent, (raw) => {
    // The wire is checked against the contract, not the server's TypeScript types.
    const envelope = serverEventSchemas[socketEvents.jobEvent].safeParse(raw)
    if (!envelope.success) {
      invalid.push(`envelope: ${envelope.error.message}`)
      return
    }
    const e = envelope.data
    if (e.kind !== 'run' || !(e.type in runEventData)) {
      invalid.push(`${e.seq}: a ${e.kind} event of type ${e.type}`)
      return
    }
    const data = runEventData[e.type as RunEventType].safeParse(e.data)
    if (!data.success) invalid.push(`${e.seq} ${e.type}: ${data.error.message}`)
    events.push(e)
  })
  await connected(socket)
  return { socket, events, invalid }
}

function joinRun(l: Listener, runId: string, lastSeq: number): Promise<JobJoinAck> {
  return l.socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq })
}

/** Resolves once `check` holds, polling every 20 ms (fails the test after 20 s). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000
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

describe.each(testDrivers())('runs on $name', (driver) => {
  let server: RunningServer
  let home: string
  let cleanup: () => Promise<void>
  const small = makeVectors(200, 6, 11)
  // Large enough that Lloyd with tol 0 keeps reassigning for many iterations: the run is still going when cancelled.
  const large = makeVectors(20_000, 16, 12)
  let smallId: string
  let largeId: string

  async function upload(v: TestVectors, name: string): Promise<string> {
    const res = await fetch(`${server.url}/api/datasets?name=${name}&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      body: npyFloat32(v),
    })
    expect(res.status).toBe(201)
    return Dataset.parse(await res.json()).id
  }

  async function post(path: string, body?: unknown): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      ...(body === undefined
        ? { headers: authHeaders }
        : { headers: { ...authHeaders, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
  }

  async function getJson(path: string): Promise<unknown> {
    const res = await fetch(`${server.url}${path}`)
    expect(res.status).toBe(200)
    return res.json()
  }

  beforeAll(async () => {
    const h = await makeTempHome()
    const db = await driver.create()
    home = h.home
    server = await startServer(testConfig(h.home, db.databaseUrl))
    cleanup = async () => {
      await server.close()
      await db.drop()
      await h.remove()
    }
    smallId = await upload(small, 'small')
    largeId = await upload(large, 'large')
  })
  afterAll(() => cleanup())

  it('runs k-means on worker processes to the single-process reference, stores events and the vocabulary', async () => {
    const res = await post('/api/runs', {
      datasetId: smallId,
      k: 4,
      maxIterations: 3,
      workers: 2,
      kernel: 'reference',
      tol: 0,
      // A tree reduction for the reduce/combine stage (the other runs here take the default regroup).
      reduction: 'tree-dyn',
    })
    expect(res.status).toBe(201)
    const queued = Run.parse(await res.json())
    expect(queued).toMatchObject({ status: 'queued', iteration: 0, inertia: null })
    expect(queued.params).toMatchObject({
      seed: 1,
      slots: 1,
      broadcast: 'chain',
      algorithm: 'lloyd',
      reduction: 'tree-dyn',
    })

    const done = await server.app.runs.settled(queued.id)
    expect(done.status).toBe('succeeded')

    // Independent oracle: the same seeded k-means++ init (the whole set is the sample) and single-process Lloyd.
    const init = await computeInit('kmeans++', small.values, small.values.length / small.d, small.d, 4, 1)
    const ref = lloydReference(small.values, small.d, init, { maxIterations: 3, tol: 0, seed: 1 })
    expect(done.iteration).toBe(ref.iterations)
    expect(done.inertia).toBeCloseTo(ref.inertia.at(-1)!, 6)

    const { events } = JobEventList.parse(await getJson(`/api/runs/${queued.id}/events`))
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
    const core = events.filter((e) => e.type === 'state' || e.type === 'iteration')
    expect(core.map((e) => e.type)).toEqual([
      'state',
      'state',
      ...Array.from({ length: ref.iterations }, () => 'iteration'),
      'state',
    ])
    // Progress walks the phases in order, between the running and the final state; logs are valid lines.
    const phases = events.filter((e) => e.type === 'progress').map((e) => RunProgressData.parse(e.data).phase)
    expect([...new Set(phases)]).toEqual(['loading', 'init', 'iterating', 'saving'])
    const firstIteration = events.findIndex((e) => e.type === 'iteration')
    const firstIterating = events.findIndex(
      (e) => e.type === 'progress' && RunProgressData.parse(e.data).phase === 'iterating',
    )
    expect(firstIterating).toBeGreaterThan(firstIteration)
    const logs = events.filter((e) => e.type === 'log').map((e) => RunLogData.parse(e.data))
    expect(logs.map((l) => l.level)).not.toContain('error')
    expect(logs.at(-1)?.message).toMatch(/^Vocabulary .* saved: 4 × \d+ float32\.$/)
    expect(events.at(-1)?.type).toBe('state')
    expect(core.map((e) => (e.type === 'state' ? Run.parse(e.data).status : null))).toEqual([
      'queued',
      'running',
      ...Array.from({ length: ref.iterations }, () => null),
      'succeeded',
    ])
    const reports = events.filter((e) => e.type === 'iteration').map((e) => IterationReport.parse(e.data))
    expect(reports.map((r) => r.iteration)).toEqual(ref.inertia.map((_, i) => i + 1))
    for (const [i, r] of reports.entries()) {
      expect(r.inertia).toBeCloseTo(ref.inertia[i]!, 6)
      expect(r.reassigned).toBe(ref.reassigned[i])
      expect(r.reduction).toBe('tree-dyn')
    }

    const after = JobEventList.parse(await getJson(`/api/runs/${queued.id}/events?after=2`))
    expect(after.events).toEqual(events.slice(2))
    // Paging: limit caps a page, and after = the last seq of a page continues exactly.
    const page1 = JobEventList.parse(await getJson(`/api/runs/${queued.id}/events?after=0&limit=3`)).events
    const page2 = JobEventList.parse(
      await getJson(`/api/runs/${queued.id}/events?after=${page1.at(-1)!.seq}&limit=3`),
    ).events
    expect([...page1, ...page2]).toEqual(events.slice(0, 6))

    expect(done.vocabularyId).toBeTruthy()
    const vocab = await openNpy(join(home, 'vocabularies', `${done.vocabularyId}.npy`))
    try {
      expect([vocab.n, vocab.d]).toEqual([4, small.d])
      const centroids = Array.from(await vocab.readRows(0, 4))
      for (const [i, x] of centroids.entries()) expect(x).toBeCloseTo(ref.centroids[i]!, 4)
    } finally {
      await vocab.close()
    }
    // The run's directory keeps only its last checkpoint: the vocabulary is a second name of it.
    expect(await readdir(join(home, 'runs', queued.id))).toEqual([`centroids-${done.iteration}.npy`])
    const checkpoint = await openNpy(join(home, 'runs', queued.id, `centroids-${done.iteration}.npy`))
    expect([checkpoint.n, checkpoint.d]).toEqual([4, small.d])
    await checkpoint.close()

    // A client joining after the end gets exactly the stored events, in order.
    const late = await listen(server.url)
    try {
      const ack = await joinRun(late, queued.id, 0)
      expect(ack).toEqual({ ok: true, lastSeq: events.length })
      expect(late.events).toEqual(events.map((e) => ({ kind: 'run', id: queued.id, ...e })))
      expect(new Set(late.events.map((e) => e.type))).toEqual(new Set(Object.keys(runEventData)))
      expect(late.invalid).toEqual([])
    } finally {
      late.socket.close()
    }

    const list = (await getJson('/api/runs')) as { runs: Run[] }
    expect(list.runs.map((r) => r.id)).toContain(queued.id)
    expect(server.app.runs.workerPids(queued.id)).toEqual([])
  })

  it('carries float32 partial sums and approximate assignment from the request to the workers and the reports', async () => {
    const common = { datasetId: smallId, k: 4, maxIterations: 3, workers: 2, kernel: 'reference', tol: 0 }
    const init = await computeInit('kmeans++', small.values, small.values.length / small.d, small.d, 4, 1)
    const ref = lloydReference(small.values, small.d, init, { maxIterations: 3, tol: 0, seed: 1 })
    const reportsOf = async (id: string) =>
      JobEventList.parse(await getJson(`/api/runs/${id}/events`))
        .events.filter((e) => e.type === 'iteration')
        .map((e) => IterationReport.parse(e.data))

    const narrow = Run.parse(await (await post('/api/runs', { ...common, partials: 'float32' })).json())
    expect(narrow.params.partials).toBe('float32')
    expect((await server.app.runs.settled(narrow.id)).status).toBe('succeeded')
    const narrowReports = await reportsOf(narrow.id)
    expect(narrowReports).toHaveLength(ref.iterations)
    for (const [i, r] of narrowReports.entries()) {
      // Real-valued sums went as float32 (half their bytes) and moved the centroids only by rounding.
      expect(r.partialBytesSaved).toBeGreaterThan(0)
      expect(Math.abs(r.inertia / ref.inertia[i]! - 1)).toBeLessThan(1e-5)
    }

    const approx = Run.parse(await (await post('/api/runs', { ...common, assignment: 'approximate' })).json())
    expect(approx.params.assignment).toBe('approximate')
    const done = await server.app.runs.settled(approx.id)
    expect(done.status).toBe('succeeded')
    for (const r of await reportsOf(approx.id)) {
      expect(r.assignment).toBe('approximate')
      expect(r.assignmentRecall).toBeGreaterThanOrEqual(0)
      expect(r.assignmentRecall).toBeLessThanOrEqual(1)
    }
    // HNSW over 4 centroids misses little: the run ends near exact Lloyd's inertia.
    expect(Math.abs(done.inertia! / ref.inertia.at(-1)! - 1)).toBeLessThan(0.01)
    expect(
      (await reportsOf(approx.id)).every((r) => r.workers.every((w) => w.approximateSearch === 'index')),
    ).toBe(true)

    // Walking the centroid graph: the first iteration searches an index, later ones walk (with 4
    // centroids the walk's 3 neighbours are all the others: it finds the exact nearest).
    const walk = Run.parse(
      await (
        await post('/api/runs', { ...common, assignment: 'approximate', approximateSearch: 'walk' })
      ).json(),
    )
    expect(walk.params.approximateSearch).toBe('walk')
    const walked = await server.app.runs.settled(walk.id)
    expect(walked.status).toBe('succeeded')
    const searches = (await reportsOf(walk.id)).map((r) => r.workers.map((w) => w.approximateSearch))
    expect(searches).toEqual([['index', 'index'], ...Array(ref.iterations - 1).fill(['walk', 'walk'])])
    expect(Math.abs(walked.inertia! / ref.inertia.at(-1)! - 1)).toBeLessThan(0.01)
  })

  it('streams a running run to sockets joining at any seq without gap or duplicate, and cancels it killing its workers', async () => {
    const first = await listen(server.url)
    const second = await listen(server.url)
    try {
      const res = await post('/api/runs', {
        datasetId: largeId,
        k: 48,
        maxIterations: 100_000,
        workers: 2,
        kernel: 'reference',
        tol: 0,
        seed: 3,
      })
      expect(res.status).toBe(201)
      const run = Run.parse(await res.json())
      expect(await joinRun(first, run.id, 0)).toMatchObject({ ok: true })
      await until(() => first.events.filter((e) => e.type === 'iteration').length >= 2, 'two iterations')

      const pids = server.app.runs.workerPids(run.id)
      expect(pids).toHaveLength(2)
      expect(pids.every(isAlive)).toBe(true)

      // One run at a time (CODEBOOK_MAX_CONCURRENT_RUNS = 1): later runs wait queued; a queued run cancels at once.
      const smallRun = { datasetId: smallId, k: 4, maxIterations: 2, workers: 1, kernel: 'reference' }
      const waiting = Run.parse(await (await post('/api/runs', smallRun)).json())
      const dropped = Run.parse(await (await post('/api/runs', smallRun)).json())
      const droppedRes = await post(`/api/runs/${dropped.id}/cancel`)
      expect(droppedRes.status).toBe(200)
      expect(Run.parse(await droppedRes.json())).toMatchObject({ status: 'cancelled', iteration: 0 })
      expect(Run.parse(await getJson(`/api/runs/${waiting.id}`)).status).toBe('queued')

      // Join mid-run from seq 3 while iteration events keep arriving.
      expect(await joinRun(second, run.id, 3)).toMatchObject({ ok: true })
      await until(() => second.events.length >= 2, 'live events on the second socket')

      const cancelRes = await post(`/api/runs/${run.id}/cancel`)
      expect(cancelRes.status).toBe(200)
      const cancelled = Run.parse(await cancelRes.json())
      expect(cancelled.status).toBe('cancelled')
      expect(cancelled.iteration).toBeGreaterThanOrEqual(2)
      expect(cancelled.vocabularyId ?? null).toBeNull()
      // Every iteration was checkpointed: the cancelled run's centroids are on disk, k × d.
      const checkpoint = await openNpy(
        join(home, 'runs', run.id, `centroids-${cancelled.checkpointIteration}.npy`),
      )
      expect([checkpoint.n, checkpoint.d]).toEqual([48, large.d])
      await checkpoint.close()
      for (const pid of pids) expect(isAlive(pid)).toBe(false)
      expect(server.app.runs.workerPids(run.id)).toEqual([])

      const { events } = JobEventList.parse(await getJson(`/api/runs/${run.id}/events`))
      const last = events.at(-1)!
      expect(last.type).toBe('state')
      expect(Run.parse(last.data).status).toBe('cancelled')
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      await until(
        () => first.events.length === events.length && second.events.length === events.length - 3,
        'the final state on both sockets',
      )
      expect(first.events).toEqual(events.map((e) => ({ kind: 'run', id: run.id, ...e })))
      expect(second.events).toEqual(events.slice(3).map((e) => ({ kind: 'run', id: run.id, ...e })))
      expect([...first.invalid, ...second.invalid]).toEqual([])

      // The queue moves on once the slot is free.
      expect((await server.app.runs.settled(waiting.id)).status).toBe('succeeded')

      const again = await post(`/api/runs/${run.id}/cancel`)
      expect(again.status).toBe(409)
      expect(await again.json()).toMatchObject({ code: 'RUN_FINISHED' })
    } finally {
      first.socket.close()
      second.socket.close()
    }
  })

  it('rejects runs on unknown datasets, k above n, and bad bodies; 404 for unknown runs', async () => {
    const unknown = await post('/api/runs', { datasetId: 'nope', k: 2, maxIterations: 1, workers: 1 })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ code: 'DATASET_NOT_FOUND' })
    const bigK = await post('/api/runs', { datasetId: smallId, k: 201, maxIterations: 1, workers: 1 })
    expect(bigK.status).toBe(400)
    expect(await bigK.json()).toMatchObject({ code: 'KMEANS_BAD_K' })
    const bad = await post('/api/runs', { datasetId: smallId, k: 0, maxIterations: 1, workers: 1 })
    expect(bad.status).toBe(400)
    const badInit = await post('/api/runs', {
      datasetId: smallId,
      k: 2,
      maxIterations: 1,
      workers: 1,
      init: 'kmeans+',
    })
    expect(badInit.status).toBe(400)
    expect(await badInit.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/init/),
    })
    // The route refuses a kernel the runtime does not know before queueing anything.
    const unknownKernel = { datasetId: smallId, k: 2, maxIterations: 1, workers: 1, kernel: 'no-such-kernel' }
    const refused = await post('/api/runs', unknownKernel)
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ code: 'KERNEL_UNKNOWN' })
    // Past the route (the service itself), a run the workers cannot execute ends failed with the
    // runtime's code, its workers gone.
    const created = await server.app.runs.create(CreateRun.parse(unknownKernel))
    const failed = await server.app.runs.settled(created.id)
    expect(failed.status).toBe('failed')
    expect(failed.error?.code).toMatch(/^[A-Z_]+$/)
    expect(failed.error?.message).toMatch(/no-such-kernel/)
    expect(server.app.runs.workerPids(failed.id)).toEqual([])
    const tooLarge = await post('/api/runs', { datasetId: smallId, k: 2, maxIterations: 1, workers: 17 })
    expect(tooLarge.status).toBe(400)
    expect(await tooLarge.json()).toMatchObject({
      code: 'RUN_TOO_LARGE',
      message: expect.stringMatching(/16/),
    })
    const missing = await fetch(`${server.url}/api/runs/nope`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ code: 'RUN_NOT_FOUND' })
    const badJoin = await listen(server.url)
    try {
      expect(await joinRun(badJoin, 'nope', 0)).toMatchObject({ ok: false, code: 'RUN_NOT_FOUND' })
    } finally {
      badJoin.socket.close()
    }
  })
})

describe('runs across a restart', () => {
  it('marks runs left running interrupted and records it as a state event', async () => {
    const h = await makeTempHome()
    try {
      const config = testConfig(h.home, undefined)
      let app = await buildApp(config)
      // A run the last server was executing when it died: written straight to the tables.
      const repo = createRunRepo(app.db)
      await repo.insert('r1', {
        datasetId: 'd1',
        k: 2,
        maxIterations: 1,
        workers: 1,
        tol: 1e-4,
        slots: 1,
        broadcast: 'chain',
        chainOrder: 'topology',
        aggregation: 'three-stage',
        reduction: 'regroup',
        algorithm: 'lloyd',
        assignment: 'exact',
        approximateSearch: 'index',
        partials: 'exact',
        encoding: 'float32',
        kernel: 'reference',
        seed: 1,
        init: 'kmeans++',
        launcher: 'local',
      })
      await repo.markRunning('r1')
      await app.close()

      app = await buildApp(config)
      try {
        const run = await app.runs.get('r1')
        expect(run).toMatchObject({ status: 'interrupted', error: { code: 'INTERRUPTED' } })
        const events = await app.runs.events('r1', 0)
        expect(events).toHaveLength(1)
        expect(events[0]).toMatchObject({ seq: 1, type: 'state', data: { status: 'interrupted' } })
      } finally {
        await app.close()
      }
    } finally {
      await h.remove()
    }
  })
})
