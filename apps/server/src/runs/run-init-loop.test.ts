import { Worker } from 'node:worker_threads'
import { Dataset, JobEventList, Run, RunLogData } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

/**
 * GETs `url` back to back (10 ms apart) on a worker thread until stopped; resolves to each
 * request's milliseconds, or -1 for a failed one.
 */
function sampleHealth(url: string): { stop(): Promise<number[]> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads')
     let stopped = false
     const latencies = []
     parentPort.once('message', () => { stopped = true })
     ;(async () => {
       while (!stopped) {
         const t = performance.now()
         try { const r = await fetch(workerData); await r.arrayBuffer(); latencies.push(r.ok ? performance.now() - t : -1) }
         catch { latencies.push(-1) }
         await new Promise((r) => setTimeout(r, 10))
       }
       parentPort.postMessage(latencies)
     })()`,
    { eval: true, workerData: url },
  )
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        worker.once('message', (l: number[]) => void worker.terminate().then(() => resolve(l)))
        worker.once('error', reject)
        worker.postMessage('stop')
      }),
  }
}

// Generous: a correctness bound (the loop is never blocked for the init's seconds), not a timing test.
const HEALTH_BOUND_MS = 500

describe('a run with a large init keeps the server answering', () => {
  let server: RunningServer
  let remove: () => Promise<void>
  let datasetId: string

  beforeAll(async () => {
    const h = await makeTempHome()
    remove = h.remove
    server = await startServer(testConfig(h.home, undefined))
    const up = await fetch(`${server.url}/api/datasets?name=big&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      body: npyFloat32(makeVectors(20_000, 32, 5)),
    })
    expect(up.status).toBe(201)
    datasetId = Dataset.parse(await up.json()).id
  })
  afterAll(async () => {
    await server?.close()
    await remove?.()
  })

  /**
   * 20,000 × 32 at k = 1,024 on the reference kernel: seconds of init work on worker 0 (in-process,
   * the sequential k-means++ blocked the loop for all of it: max 5.6 s here).
   */
  async function postRun(): Promise<Run> {
    const created = await fetch(`${server.url}/api/runs`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ datasetId, k: 1024, maxIterations: 1, workers: 1, kernel: 'reference', tol: 0 }),
    })
    expect(created.status).toBe(201)
    return Run.parse(await created.json())
  }

  async function logLines(runId: string): Promise<string[]> {
    const res = await fetch(`${server.url}/api/runs/${runId}/events`)
    return JobEventList.parse(await res.json())
      .events.filter((e) => e.type === 'log')
      .map((e) => RunLogData.parse(e.data).message)
  }

  it('answers /api/health within the bound during a k = 1,024 init, and the run completes', async () => {
    const run = await postRun()
    const done = server.app.runs.settled(run.id)
    // The client runs on its own thread: on the server's thread it would stall with the loop and never see it.
    const sampler = sampleHealth(`${server.url}/api/health`)
    await done
    const latencies = await sampler.stop()
    expect((await done).status).toBe('succeeded')
    expect(latencies.every((l) => l >= 0)).toBe(true)

    const initLine = (await logLines(run.id)).find((m) => m.startsWith('kmeans++ init of 1024 centroids'))
    expect(initLine).toMatch(/on worker 0 in \d+ ms\.$/)
    const initMs = Number(/in (\d+) ms\.$/.exec(initLine ?? '')?.[1])
    expect(Math.max(...latencies)).toBeLessThan(HEALTH_BOUND_MS)
    // The init took long enough for many health requests to land inside it.
    expect(latencies.length).toBeGreaterThan(initMs / 100)
  }, 180_000)

  it('cancels a run during its init: the init ends with the worker, none is left', async () => {
    const run = await postRun()
    let pids: number[] = []
    const deadline = Date.now() + 60_000
    while (pids.length === 0 && Date.now() < deadline) {
      pids = server.app.runs.workerPids(run.id)
      await new Promise((r) => setTimeout(r, 20))
    }
    expect(pids.length).toBe(1)
    await new Promise((r) => setTimeout(r, 300))
    const res = await fetch(`${server.url}/api/runs/${run.id}/cancel`, {
      method: 'POST',
      headers: authHeaders,
    })
    expect(res.status).toBe(200)
    expect(Run.parse(await res.json())).toMatchObject({ status: 'cancelled', iteration: 0 })
    // Cancelled inside the init (it never logged its end), and the worker computing it is gone.
    expect((await logLines(run.id)).some((m) => / init of /.test(m))).toBe(false)
    expect(server.app.runs.workerPids(run.id)).toEqual([])
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow()
  }, 180_000)
})
