import { join } from 'node:path'
import { openNpy } from '@codebook/runtime/formats'
import { Dataset, IterationReport, JobEventList, Run, socketEvents } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { connected, eventClient } from '../test-support/event-client.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { isAlive, waitFor } from '../test-support/processes.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

/** Large enough that Lloyd with tol 0 still reassigns vectors after 8 iterations (no early stop). */
const data = makeVectors(20_000, 16, 12)
const params = { k: 48, maxIterations: 8, workers: 2, kernel: 'reference', tol: 0, seed: 3 }

describe('resuming runs', () => {
  let home: { home: string; remove(): Promise<void> }
  let server: RunningServer
  let datasetId: string
  /** Centroids of the undisturbed run. */
  let reference: Float32Array

  async function post(path: string, body?: unknown): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      ...(body === undefined
        ? { headers: authHeaders }
        : { headers: { ...authHeaders, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
  }

  async function readVocabulary(id: string): Promise<Float32Array> {
    const f = await openNpy(join(home.home, 'vocabularies', `${id}.npy`))
    try {
      expect([f.n, f.d]).toEqual([params.k, data.d])
      return Float32Array.from(await f.readRows(0, f.n))
    } finally {
      await f.close()
    }
  }

  beforeAll(async () => {
    home = await makeTempHome()
    server = await startServer(testConfig(home.home, undefined))
    const res = await fetch(`${server.url}/api/datasets?name=resume&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      body: npyFloat32(data),
    })
    expect(res.status).toBe(201)
    datasetId = Dataset.parse(await res.json()).id
  })
  afterAll(async () => {
    await server.close()
    await home.remove()
  })

  it('runs the fixed-iteration run undisturbed; finished runs are not resumable', async () => {
    const run = Run.parse(await (await post('/api/runs', { datasetId, ...params })).json())
    const done = await server.app.runs.settled(run.id)
    expect(done).toMatchObject({ status: 'succeeded', iteration: 8, checkpointIteration: 8 })
    reference = await readVocabulary(done.vocabularyId!)

    const again = await post(`/api/runs/${run.id}/resume`)
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ code: 'RUN_NOT_RESUMABLE' })
    expect((await post('/api/runs/nope/resume')).status).toBe(404)
  })

  /**
   * Starts a run and freezes its workers (SIGSTOP) as soon as iteration 2 is reported: the run
   * cannot reach iteration 8 before the test acts, however fast this machine is. Returns the run
   * and the frozen workers' PIDs.
   */
  async function startFrozen(): Promise<{ run: Run; pids: number[] }> {
    const run = Run.parse(await (await post('/api/runs', { datasetId, ...params })).json())
    const socket = eventClient(server.url)
    let pids: number[] | null = null
    socket.on(socketEvents.jobEvent, (e) => {
      if (pids || e.type !== 'iteration' || IterationReport.parse(e.data).iteration < 2) return
      pids = server.app.runs.workerPids(run.id)
      for (const pid of pids) process.kill(pid, 'SIGSTOP')
    })
    try {
      await connected(socket)
      expect(
        await socket.emitWithAck(socketEvents.jobJoin, { kind: 'run', id: run.id, lastSeq: 0 }),
      ).toMatchObject({
        ok: true,
      })
      await waitFor('iteration 2', () => pids !== null)
    } finally {
      socket.close()
    }
    expect(pids!).toHaveLength(params.workers)
    return { run, pids: pids! }
  }

  async function iterationsOf(runId: string): Promise<IterationReport[]> {
    const { events } = JobEventList.parse(
      await (await fetch(`${server.url}/api/runs/${runId}/events`)).json(),
    )
    return events.filter((e) => e.type === 'iteration').map((e) => IterationReport.parse(e.data))
  }

  for (const killed of [1, 2]) {
    it(`${killed === 1 ? 'a worker' : 'both workers'} killed mid-run: replaced, re-run from the checkpoint, the undisturbed vocabulary bit for bit`, async () => {
      const { run, pids } = await startFrozen()
      for (const pid of pids.slice(0, killed)) process.kill(pid, 'SIGKILL')
      for (const pid of pids.slice(killed)) process.kill(pid, 'SIGCONT')
      const done = await server.app.runs.settled(run.id)
      expect(done).toMatchObject({ status: 'succeeded', iteration: 8 })
      expect(Array.from(await readVocabulary(done.vocabularyId!))).toEqual(Array.from(reference))
      const reports = await iterationsOf(run.id)
      expect(reports.map((r) => r.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      expect(reports.reduce((sum, r) => sum + r.restarts, 0)).toBeGreaterThanOrEqual(1)
    })
  }

  it('a killed driver process fails the run (RUN_DRIVER_CRASHED), not the server; the run resumes to the undisturbed vocabulary', async () => {
    const { run, pids } = await startFrozen()
    const driver = server.app.runs.driverPid(run.id)
    expect(driver).toBeDefined()
    process.kill(driver!, 'SIGKILL')
    for (const pid of pids) process.kill(pid, 'SIGCONT')
    const failed = await server.app.runs.settled(run.id)
    expect(failed.status).toBe('failed')
    expect(failed.error?.code).toBe('RUN_DRIVER_CRASHED')
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    // Its workers lose their driver and exit.
    await waitFor('the workers to exit', async () => !(await Promise.all(pids.map(isAlive))).some(Boolean))

    expect((await post(`/api/runs/${run.id}/resume`)).status).toBe(200)
    const done = await server.app.runs.settled(run.id)
    expect(done).toMatchObject({ status: 'succeeded', iteration: 8 })
    expect(Array.from(await readVocabulary(done.vocabularyId!))).toEqual(Array.from(reference))
    expect((await iterationsOf(run.id)).map((r) => r.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
  })

  it('resumes a run cut off by a server stop to the undisturbed centroids, numbering iterations and seq on', async () => {
    const { run } = await startFrozen()

    // Graceful stop (the stopped workers are killed by the pool), then a new server on the same home.
    await server.close()
    server = await startServer(testConfig(home.home, undefined))
    const cut = await server.app.runs.get(run.id)
    expect(cut.status).toBe('interrupted')
    expect(cut.checkpointIteration).toBeGreaterThanOrEqual(2)
    expect(cut.checkpointIteration).toBeLessThan(8)
    expect(cut.iteration).toBe(cut.checkpointIteration)

    const res = await post(`/api/runs/${run.id}/resume`)
    expect(res.status).toBe(200)
    expect(Run.parse(await res.json())).toMatchObject({ status: 'queued', error: null })
    const done = await server.app.runs.settled(run.id)
    expect(done).toMatchObject({ status: 'succeeded', iteration: 8 })
    expect(Array.from(await readVocabulary(done.vocabularyId!))).toEqual(Array.from(reference))

    const { events } = JobEventList.parse(
      await (await fetch(`${server.url}/api/runs/${run.id}/events`)).json(),
    )
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
    const iterations = events.filter((e) => e.type === 'iteration').map((e) => IterationReport.parse(e.data))
    expect(iterations.map((r) => r.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    const states = events.filter((e) => e.type === 'state').map((e) => Run.parse(e.data).status)
    expect(states).toEqual(['queued', 'running', 'interrupted', 'queued', 'running', 'succeeded'])
    // A finished resumed run is not resumable again.
    expect((await post(`/api/runs/${run.id}/resume`)).status).toBe(409)
  })
})
