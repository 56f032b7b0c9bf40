import { monitorEventLoopDelay } from 'node:perf_hooks'
import {
  GRID_COMPUTE_RATIOS,
  GRID_CVS,
  gridCell,
  markovCheck,
  playCell,
  summariseCell,
} from '@codebook/runtime/netsim'
import { ErrorBody, JobEventList, Study, StudyList } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { listenToJobs } from '../test-support/job-listener.ts'
import { isAlive, waitFor } from '../test-support/processes.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'

/** A study long enough to be caught running on a loaded machine (minutes), cancelled long before its end. */
const LONG = { kind: 'reductions', n: 1024, cv: [0.01, 0.1, 0.3, 1, 3, 10], runs: 100_000 } as const

describe.each(testDrivers())('studies on $name', (driver) => {
  let server: RunningServer
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let db: Awaited<ReturnType<typeof driver.create>>

  async function post(path: string, body?: unknown): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...authHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  }
  const create = async (body: unknown) => Study.parse(await (await post('/api/studies', body)).json())
  const get = async (id: string) => Study.parse(await (await fetch(`${server.url}/api/studies/${id}`)).json())

  beforeAll(async () => {
    home = await makeTempHome()
    db = await driver.create()
    server = await startServer(testConfig(home.home, db.databaseUrl))
  })
  afterAll(async () => {
    await server?.close()
    await db.drop()
    await home.remove()
  })

  it('plays a reductions study to the runtime’s rows for the same seed, streaming state, progress and results', async () => {
    const client = await listenToJobs(server.url, 'study')
    const delay = monitorEventLoopDelay({ resolution: 10 })
    try {
      const body = { kind: 'reductions', n: 16, cv: [0.1, 3], muC: [0, 1], runs: 10_000, seed: 7 }
      delay.enable()
      const res = await post('/api/studies', body)
      expect(res.status).toBe(201)
      const queued = Study.parse(await res.json())
      expect(queued).toMatchObject({ kind: 'reductions', status: 'queued', progress: 0, results: [] })
      expect(await client.join(queued.id)).toMatchObject({ ok: true })
      const done = await server.app.studies.settled(queued.id)
      delay.disable()
      expect(done.error).toBeNull()
      expect(done).toMatchObject({ status: 'succeeded', progress: 1 })
      // The server's loop stays responsive: the simulation runs in the child.
      console.log(
        `event-loop delay during the study: p50 ${(delay.percentile(50) / 1e6).toFixed(1)} ms, ` +
          `p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms, max ${(delay.max / 1e6).toFixed(1)} ms`,
      )
      expect(delay.percentile(99) / 1e6).toBeLessThan(100)
      const expected = body.cv.flatMap((cv) =>
        body.muC.flatMap((muC) => {
          const cell = { n: body.n, cv, muC, runs: body.runs, seed: body.seed }
          return summariseCell(cell, playCell(cell))
        }),
      )
      expect(done.results).toEqual(expected)
      expect(await get(queued.id)).toEqual(done)

      await waitFor(
        'final state',
        () => client.events.some((e) => e.type === 'state' && e.data.status === 'succeeded'),
        60_000,
      )
      const mine = client.events.filter((e) => e.id === queued.id)
      const states = mine.flatMap((e) => (e.type === 'state' ? [e.data.status] : []))
      expect(states).toEqual(['queued', 'running', 'succeeded'])
      // The socket's replay and live events are the stored feed, seq 1, 2, 3, … without a gap.
      const stored = JobEventList.parse(
        await (await fetch(`${server.url}/api/studies/${queued.id}/events`)).json(),
      )
      expect(mine.map((e) => e.seq)).toEqual(stored.events.map((e) => e.seq))
      expect(stored.events.map((e) => e.seq)).toEqual(stored.events.map((_, i) => i + 1))
      // A record read by GET names the seq its feed had then: a client joining from it gets nothing twice.
      expect((await get(queued.id)).lastEventSeq).toBe(stored.events.length)
      expect(queued.lastEventSeq).toBeUndefined()
      // Results arrive cell by cell, in play order, between running and the end.
      const streamed = mine.flatMap((e): unknown[] => (e.type === 'result' ? e.data : []))
      expect(streamed).toEqual(expected)
      const fractions = mine.flatMap((e) => (e.type === 'progress' ? [e.data.fraction] : []))
      expect(fractions.length).toBeGreaterThan(0)
      expect(fractions).toEqual([...fractions].sort((a, b) => a - b))
      expect(fractions.at(-1)).toBe(1)

      const list = StudyList.parse(await (await fetch(`${server.url}/api/studies`)).json())
      expect(list.studies.map((s) => s.id)).toContain(queued.id)
    } finally {
      client.socket.close()
    }
  }, 120_000)

  it('plays the grid and Markov studies as the runtime’s gridCell and markovCheck do', async () => {
    const grid = await create({ kind: 'grid', n: 8, runs: 3, seed: 5 })
    const markov = await create({ kind: 'markov', n: 12, runs: 4000, seed: 9 })
    const gridDone = await server.app.studies.settled(grid.id)
    expect(gridDone.status).toBe('succeeded')
    expect(gridDone.params).toMatchObject({ cvs: GRID_CVS, computeRatios: GRID_COMPUTE_RATIOS })
    expect(gridDone.results).toEqual(
      GRID_CVS.flatMap((cv) => GRID_COMPUTE_RATIOS.map((muC) => gridCell(8, cv, muC, 3, 5))),
    )
    const markovDone = await server.app.studies.settled(markov.id)
    expect(markovDone.status).toBe('succeeded')
    expect(markovDone.results).toEqual([markovCheck(12, 4000, 9)])
  }, 120_000)

  it('refuses bad requests with coded errors', async () => {
    for (const body of [
      { kind: 'reductions', n: 1025 },
      { kind: 'reductions', runs: 100_001 },
      { kind: 'reductions', cv: Array.from({ length: 17 }, (_, i) => i + 1) },
      { kind: 'reductions', cv: [0] },
      { kind: 'reductions', muC: [-1] },
      { kind: 'grid', runs: 10_001 },
      { kind: 'markov', n: 1 },
      { kind: 'tables' },
    ]) {
      const res = await post('/api/studies', body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(ErrorBody.parse(await res.json()).code).toBe('VALIDATION_FAILED')
    }
    const missing = await fetch(`${server.url}/api/studies/nope`)
    expect(missing.status).toBe(404)
    expect(ErrorBody.parse(await missing.json()).code).toBe('STUDY_NOT_FOUND')
    const noAuth = await fetch(`${server.url}/api/studies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'markov' }),
    })
    expect(noAuth.status).toBe(401)
  })

  it('runs studies one at a time: cancels a running one (its process ends), then the queued one runs; delete removes', async () => {
    const client = await listenToJobs(server.url, 'study')
    try {
      const big = await create(LONG)
      const small = await create({ kind: 'markov', n: 8, runs: 2000 })
      const dropped = await create({ kind: 'markov', n: 8, runs: 2000 })
      expect(await client.join(small.id)).toMatchObject({ ok: true })
      await waitFor('the big study’s child', () => server.app.studies.childPid(big.id) !== undefined, 60_000)
      const pid = server.app.studies.childPid(big.id)!
      expect((await get(small.id)).status).toBe('queued')

      expect(Study.parse(await (await post(`/api/studies/${dropped.id}/cancel`)).json()).status).toBe(
        'cancelled',
      )
      const cancelled = Study.parse(await (await post(`/api/studies/${big.id}/cancel`)).json())
      expect(cancelled).toMatchObject({ status: 'cancelled', error: { code: 'STUDY_CANCELLED' } })
      expect(await isAlive(pid)).toBe(false)
      const again = await post(`/api/studies/${big.id}/cancel`)
      expect(again.status).toBe(409)
      expect(ErrorBody.parse(await again.json()).code).toBe('STUDY_FINISHED')

      expect((await server.app.studies.settled(small.id)).status).toBe('succeeded')
      expect((await get(dropped.id)).status).toBe('cancelled')

      const del = await fetch(`${server.url}/api/studies/${small.id}`, {
        method: 'DELETE',
        headers: authHeaders,
      })
      expect(del.status).toBe(204)
      expect((await fetch(`${server.url}/api/studies/${small.id}`)).status).toBe(404)
      // Its feed goes with it: the events route answers 404 and the table holds none of its events.
      expect(client.events.some((e) => e.id === small.id && e.type === 'result')).toBe(true)
      expect((await fetch(`${server.url}/api/studies/${small.id}/events`)).status).toBe(404)
      expect(await server.app.jobFeed.eventsAfter('study', small.id, 0)).toEqual([])

      // Deleting a running study stops it first.
      const running = await create(LONG)
      await waitFor(
        'the running study’s child',
        () => server.app.studies.childPid(running.id) !== undefined,
        60_000,
      )
      const runningPid = server.app.studies.childPid(running.id)!
      const delRunning = await fetch(`${server.url}/api/studies/${running.id}`, {
        method: 'DELETE',
        headers: authHeaders,
      })
      expect(delRunning.status).toBe(204)
      expect(await isAlive(runningPid)).toBe(false)
      expect((await fetch(`${server.url}/api/studies/${running.id}`)).status).toBe(404)
    } finally {
      client.socket.close()
    }
  }, 120_000)

  it('marks a running study interrupted when the server stops and runs the queued one after the restart', async () => {
    const running = await create(LONG)
    const waiting = await create({ kind: 'markov', n: 8, runs: 2000, seed: 4 })
    await waitFor('the child', () => server.app.studies.childPid(running.id) !== undefined, 60_000)
    const pid = server.app.studies.childPid(running.id)!
    await server.close()
    await waitFor('the child to exit', async () => !(await isAlive(pid)), 10_000)
    server = await startServer(testConfig(home.home, db.databaseUrl))
    expect(await get(running.id)).toMatchObject({ status: 'interrupted', error: { code: 'INTERRUPTED' } })
    const after = await server.app.studies.settled(waiting.id)
    expect(after.status).toBe('succeeded')
    expect(after.results).toEqual([markovCheck(8, 2000, 4)])
  }, 120_000)
})
