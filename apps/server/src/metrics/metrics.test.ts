import { IterationReport, JobEventList, Run, stageNames } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'

/** Samples of Prometheus's text format: `name{a="x",b="y"} value` → { name, labels, value }. */
function parseExposition(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const samples = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!
    samples.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return samples
}

describe.each(testDrivers())('GET /metrics on $name', (driver) => {
  let server: RunningServer
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const h = await makeTempHome()
    const db = await driver.create()
    server = await startServer(testConfig(h.home, db.databaseUrl))
    cleanup = async () => {
      await server.close()
      await db.drop()
      await h.remove()
    }
  })
  afterAll(() => cleanup())

  async function uploadNpy(name: string, n: number, d: number, seed: number): Promise<string> {
    const res = await fetch(`${server.url}/api/datasets?name=${name}&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      body: npyFloat32(makeVectors(n, d, seed)),
    })
    expect(res.status).toBe(201)
    return ((await res.json()) as { id: string }).id
  }

  async function scrape() {
    const res = await fetch(`${server.url}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    return parseExposition(await res.text())
  }

  it('counts requests by matched route, jobs by state, and the run’s iteration and stage times as its events say', async () => {
    const datasetId = await uploadNpy('m', 300, 4, 3)
    const created = await fetch(`${server.url}/api/runs`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ datasetId, k: 3, maxIterations: 4, tol: 0, workers: 2, kernel: 'reference' }),
    })
    expect(created.status).toBe(201)
    const run = Run.parse(await created.json())
    expect((await server.app.runs.settled(run.id)).status).toBe('succeeded')
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/api/runs/${run.id}`)).status).toBe(200)
    const { events } = JobEventList.parse(
      await (await fetch(`${server.url}/api/runs/${run.id}/events`)).json(),
    )
    const reports = events.filter((e) => e.type === 'iteration').map((e) => IterationReport.parse(e.data))
    expect(reports).toHaveLength(4)

    const samples = await scrape()
    const one = (name: string, labels: Record<string, string> = {}) => {
      const found = samples.filter(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      )
      expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1)
      return found[0]!.value
    }

    // Routes are the matched patterns (ids would make unbounded label values), counted exactly.
    expect(
      one('codebook_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/runs/:id',
        status_code: '200',
      }),
    ).toBe(3)
    expect(samples.some((s) => s.labels.route?.includes(run.id))).toBe(false)

    expect(one('codebook_jobs', { kind: 'run', state: 'succeeded' })).toBe(1)
    expect(one('codebook_jobs', { kind: 'import', state: 'ready' })).toBe(1)
    expect(one('codebook_workers')).toBe(0)

    // The histograms hold exactly what the run's stored iteration events report.
    expect(one('codebook_run_iteration_duration_seconds_count')).toBe(4)
    const total = reports.reduce((sum, r) => sum + stageNames.reduce((s, st) => s + r.stages[st]!.ms, 0), 0)
    expect(one('codebook_run_iteration_duration_seconds_sum')).toBeCloseTo(total / 1000, 9)
    for (const stage of stageNames) {
      const stageTotal = reports.reduce((sum, r) => sum + r.stages[stage]!.ms, 0)
      expect(one('codebook_run_stage_duration_seconds_sum', { stage })).toBeCloseTo(stageTotal / 1000, 9)
    }

    // Node's own: event-loop lag and resident memory.
    expect(one('codebook_nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0)
    expect(one('codebook_process_resident_memory_bytes')).toBeGreaterThan(0)
  })

  it('counts a worker process for each worker of a running run', async () => {
    const datasetId = await uploadNpy('big', 20_000, 16, 12)
    const created = await fetch(`${server.url}/api/runs`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ datasetId, k: 50, maxIterations: 500, tol: 0, workers: 2, kernel: 'reference' }),
    })
    const run = Run.parse(await created.json())
    const deadline = Date.now() + 30_000
    while (server.app.runs.workerPids(run.id).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20))
    const workers = (await scrape()).find((s) => s.name === 'codebook_workers')!.value
    expect(workers).toBe(server.app.runs.workerPids(run.id).length)
    expect(workers).toBe(2)
    await fetch(`${server.url}/api/runs/${run.id}/cancel`, { method: 'POST', headers: authHeaders })
    await server.app.runs.settled(run.id)
  })
})
