import { Agent, get } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { DatasetList, ErrorBody, TopologyList } from '@codebook/shared'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'
import { errorPlugin } from './error-plugin.ts'
import {
  HEAVY_READS,
  READ_CLASS_BOUNDS,
  readClassOf,
  readLimitsPlugin,
  UNBOUNDED_READS,
} from './read-limits.ts'

// The bounds on open reads (issue 31) on a real listening server: a client past its limit is
// answered 429 TOO_MANY_READS with Retry-After through the one error path, health is never counted,
// slots come back once answers are sent, and the lists are pages.

const PER_CLIENT = 4

function topology(name: string) {
  const node = (n: string) => ({ name: n, host: 'local', slots: 1, nicGbps: 1 })
  return {
    version: 1,
    name,
    sites: [{ name: 's', racks: [{ name: 'r', uplinkGbps: 10, nodes: [node('a'), node('b')] }] }],
    siteLinks: { bandwidthGbps: [[0]], latencyMs: [[0]] },
  }
}

/** What a GET answered: status, Retry-After and the error code, if any. */
async function answer(url: string): Promise<{ status: number; retryAfter: string | null; code?: string }> {
  const res = await fetch(url)
  const body = (await res.json()) as unknown
  const parsed = ErrorBody.safeParse(body)
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: parsed.data?.code }
}

// The bounds alone on a Fastify app with the server's error path and reads that take 150 ms.
describe('open read bounds', () => {
  let app: FastifyInstance
  let url: string
  const slow = async () => {
    await new Promise((r) => setTimeout(r, 150))
    return { ok: true }
  }

  beforeAll(async () => {
    // The aborted fetches leave keep-alive sockets behind; close must not wait for them.
    app = Fastify({ forceCloseConnections: true })
    await app.register(errorPlugin, { spaFallback: false, home: '/nowhere' })
    await app.register(readLimitsPlugin, { maxReadsPerClient: 40 })
    app.get('/api/health', slow)
    app.get('/api/runs', slow)
    app.get('/api/datasets/:id/preview', slow)
    url = await app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(() => app.close())

  it('answers a client past its limit 429 TOO_MANY_READS with Retry-After, and never counts health', async () => {
    // 80 connections opened first (health is fast and never counted): the burst below then arrives
    // at once on them, not one accepted connection at a time while early reads finish.
    await Promise.all(Array.from({ length: 80 }, () => answer(`${url}/api/health`)))
    const answers = await Promise.all([
      ...Array.from({ length: 60 }, () => answer(`${url}/api/runs`)),
      ...Array.from({ length: 20 }, () => answer(`${url}/api/health`)),
    ])
    expect(answers.slice(60).every((a) => a.status === 200)).toBe(true)
    const refused = answers.filter((a) => a.status === 429)
    expect(refused.length).toBe(20)
    for (const a of refused) expect(a).toEqual({ status: 429, retryAfter: '1', code: 'TOO_MANY_READS' })
    // Every slot came back once answered.
    const later = await Promise.all(Array.from({ length: 40 }, () => answer(`${url}/api/runs`)))
    expect(later.every((a) => a.status === 200)).toBe(true)
  })

  it('runs heavy reads a few at a time behind a bounded queue: past it 503 SERVER_BUSY with Retry-After', async () => {
    const { running, waiting } = READ_CLASS_BOUNDS.heavy
    const started = performance.now()
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => answer(`${url}/api/datasets/d${i}/preview`)),
    )
    const served = answers.filter((a) => a.status === 200).length
    expect(served).toBe(running + waiting)
    for (const a of answers.filter((x) => x.status !== 200))
      expect(a).toEqual({ status: 503, retryAfter: '1', code: 'SERVER_BUSY' })
    // `running` at a time: the queue took (running + waiting) / running rounds of 150 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(((running + waiting) / running) * 150 - 50)
  })

  it('gives back the slot of a client that hung up while waiting or being served', async () => {
    const aborts = Array.from({ length: 40 }, (_, i) => {
      const abort = new AbortController()
      const done = fetch(`${url}/api/datasets/gone${i}/preview`, { signal: abort.signal }).catch(
        () => undefined,
      )
      setTimeout(() => abort.abort(), 20)
      return done
    })
    await Promise.all(aborts)
    await new Promise((r) => setTimeout(r, 400))
    const later = await Promise.all(
      Array.from({ length: READ_CLASS_BOUNDS.heavy.running }, (_, i) =>
        answer(`${url}/api/datasets/x${i}/preview`),
      ),
    )
    expect(later.every((a) => a.status === 200)).toBe(true)
  })
})

// Reads whose work is synchronous (PGlite's queries, cached previews) must not run back to back in
// one microtask drain: each starts on its own macrotask, so health is answered between them.
describe('queued reads leave the event loop to health', () => {
  const BUSY_MS = 5
  const READS = 120
  let app: FastifyInstance
  let url: string

  beforeAll(async () => {
    app = Fastify({ forceCloseConnections: true })
    await app.register(errorPlugin, { spaFallback: false, home: '/nowhere' })
    await app.register(readLimitsPlugin, { maxReadsPerClient: 1000 })
    app.get('/api/health', async () => ({ ok: true }))
    app.get('/api/runs', async () => {
      const until = performance.now() + BUSY_MS
      while (performance.now() < until) {}
      return { ok: true }
    })
    url = await app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(() => app.close())

  it('answers health within a few reads while a queue of them drains', async () => {
    // Health on a connection opened before the flood: the kernel's accept queue is FIFO, so a new
    // connection would wait behind the flood's own connections whatever the server does.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const health = () =>
      new Promise<void>((resolve, reject) =>
        get(`${url}/api/health`, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject),
      )
    await health()
    // The flood's own connections opened (and kept alive) first, so that its requests arrive
    // together, as a browser's or a script's reused connections do.
    await Promise.all(Array.from({ length: READS }, () => answer(`${url}/api/runs`)))
    const lag = monitorEventLoopDelay({ resolution: 1 })
    lag.enable()
    const started = performance.now()
    const reads = Array.from({ length: READS }, () => answer(`${url}/api/runs`))
    // Health asked while the reads are queued and running.
    await new Promise((r) => setTimeout(r, 20))
    const asked = performance.now()
    await health()
    const healthMs = performance.now() - asked
    const answers = await Promise.all(reads)
    const floodMs = performance.now() - started
    lag.disable()
    agent.destroy()
    expect(answers.every((a) => a.status === 200)).toBe(true)
    // The flood's synchronous work alone is READS × BUSY_MS, but reads start one per event-loop
    // turn: the loop is held for about one read at a time (670 ms when queued reads ran in one
    // microtask drain), and health waits for a few of them at most.
    expect(floodMs).toBeGreaterThan(READS * BUSY_MS)
    const batchMs = READ_CLASS_BOUNDS.read.running * BUSY_MS
    expect(lag.max / 1e6).toBeLessThan(4 * batchMs)
    expect(healthMs).toBeLessThan(4 * batchMs)
  })
})

describe('open read limits on the server', () => {
  let app: FastifyInstance
  let removeHome: () => Promise<void>

  beforeAll(async () => {
    const home = await makeTempHome()
    removeHome = home.remove
    app = await buildApp(testConfig(home.home, undefined, { maxReadsPerClient: PER_CLIENT }))
  })
  afterAll(async () => {
    await app.close()
    await removeHome()
  })

  it('classifies every GET route: health and limits unbounded, previews and exports heavy', () => {
    const routes = app.printRoutes({ commonPrefix: false })
    expect(routes).toContain('/api/health')
    for (const route of UNBOUNDED_READS) expect(readClassOf('GET', route)).toBeUndefined()
    for (const route of HEAVY_READS) expect(readClassOf('GET', route)).toBe('heavy')
    expect(readClassOf('GET', '/api/datasets')).toBe('read')
    expect(readClassOf('GET', '/metrics')).toBe('read')
    expect(readClassOf('POST', '/api/datasets')).toBeUndefined()
    expect(readClassOf('GET', '/*')).toBeUndefined()
    expect(READ_CLASS_BOUNDS.heavy.running).toBeLessThan(READ_CLASS_BOUNDS.read.running)
  })

  it('pages the lists with limit and before (nextBefore), 400 for a bad limit or an unknown cursor', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/topologies',
        headers: authHeaders,
        payload: { topology: topology(`t${i}`) },
      })
      expect(res.statusCode).toBe(201)
    }
    const names: string[] = []
    let before: string | null = null
    let pages = 0
    do {
      const query: string = before === null ? '' : `&before=${before}`
      const res = await app.inject({ method: 'GET', url: `/api/topologies?limit=2${query}` })
      expect(res.statusCode).toBe(200)
      const page = TopologyList.parse(res.json())
      expect(page.topologies.length).toBeLessThanOrEqual(2)
      names.push(...page.topologies.map((t) => t.name))
      before = page.nextBefore
      pages++
    } while (before !== null)
    expect(pages).toBe(3)
    expect(names).toEqual(['t4', 't3', 't2', 't1', 't0'])

    const all = TopologyList.parse((await app.inject({ method: 'GET', url: '/api/topologies' })).json())
    expect(all.topologies.map((t) => t.name)).toEqual(names)
    expect(all.nextBefore).toBeNull()
    expect(DatasetList.parse((await app.inject({ method: 'GET', url: '/api/datasets' })).json())).toEqual({
      datasets: [],
      nextBefore: null,
    })

    const tooMany = await app.inject({ method: 'GET', url: '/api/runs?limit=501' })
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json().code).toBe('VALIDATION_FAILED')
    const unknown = await app.inject({ method: 'GET', url: '/api/datasets?before=no-such-id' })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().code).toBe('INVALID_CURSOR')
  })
})
