import { existsSync } from 'node:fs'
import { link, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Dataset, Evaluation, ImageSet, Run } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DIGITS_PNG } from '../datasets/demo-seed.ts'
import { type RunningServer, startServer } from '../start-server.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'
import { papersTopology } from '../topologies/topology-seed.ts'

/**
 * Runs, evaluations, imports and simulations are all jobs of `jobs/job-queue.ts`: for each kind
 * this cancels a waiting job (it never starts), cancels or stops a running one, and restarts the
 * server (running → interrupted, waiting → queued again), on a real server and real processes.
 */

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
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

// The job model does not depend on the database: PGlite alone keeps this file short.
const driver = testDrivers()[0]!

describe('every kind of background work through the job queue', () => {
  let server: RunningServer
  let home: { home: string; remove(): Promise<void> }

  async function restart(): Promise<void> {
    await server.close()
    server = await startServer(testConfig(home.home, undefined))
  }

  async function post(path: string, body?: unknown): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...authHeaders, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  }

  beforeAll(async () => {
    expect(driver.name).toBe('pglite')
    home = await makeTempHome()
    server = await startServer(testConfig(home.home, undefined))
  })
  afterAll(async () => {
    await server?.close()
    await home.remove()
  })

  it('runs: a waiting run is cancelled unstarted, a running one is interrupted by a restart, the waiting one runs after it', async () => {
    const upload = await fetch(`${server.url}/api/datasets?name=large&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      body: npyFloat32(makeVectors(20_000, 16, 12)),
    })
    expect(upload.status).toBe(201)
    const datasetId = Dataset.parse(await upload.json()).id
    // tol 0 and many iterations: each run keeps going until it is stopped.
    const params = { datasetId, k: 64, workers: 2, maxIterations: 100_000, tol: 0, init: 'random' }
    const create = async () => Run.parse(await (await post('/api/runs', params)).json())
    const getRun = async (id: string) => Run.parse(await (await fetch(`${server.url}/api/runs/${id}`)).json())

    const first = await create()
    const cancelled = await create()
    const requeued = await create()
    await until(async () => (await getRun(first.id)).status === 'running', 'the first run to start')
    // maxConcurrentRuns is 1: the others wait.
    expect(server.app.runs.workerPids(cancelled.id)).toEqual([])
    const c = Run.parse(await (await post(`/api/runs/${cancelled.id}/cancel`)).json())
    expect(c).toMatchObject({ status: 'cancelled', startedAt: null, error: { code: 'RUN_CANCELLED' } })

    await until(() => server.app.runs.workerPids(first.id).length === 2, 'the first run’s workers')
    const pids = server.app.runs.workerPids(first.id)
    await restart()
    expect(pids.filter(isAlive)).toEqual([])
    expect(await getRun(first.id)).toMatchObject({ status: 'interrupted', error: { code: 'INTERRUPTED' } })
    // The waiting run was queued again at the start and now runs; cancelling it stops its workers.
    await until(async () => (await getRun(requeued.id)).status === 'running', 'the re-queued run to start')
    await until(() => server.app.runs.workerPids(requeued.id).length === 2, 'its workers')
    const workers = server.app.runs.workerPids(requeued.id)
    const stopped = Run.parse(await (await post(`/api/runs/${requeued.id}/cancel`)).json())
    expect(stopped).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED' } })
    expect(stopped.startedAt).not.toBeNull()
    expect(workers.filter(isAlive)).toEqual([])
  }, 120_000)

  it('evaluations: the same three paths, one at a time', async () => {
    const res = await fetch(`${server.url}/api/image-sets?name=digits&kind=grid&grid=20x20&rowsPerClass=5`, {
      method: 'PUT',
      headers: { ...authHeaders, 'content-type': 'image/png' },
      body: await readFile(DIGITS_PNG),
    })
    expect(res.status).toBe(201)
    const imageSetId = ImageSet.parse(await res.json()).id
    const create = async () =>
      Evaluation.parse(await (await post('/api/evaluations', { imageSetId, k: [512] })).json())
    const get = async (id: string) =>
      Evaluation.parse(await (await fetch(`${server.url}/api/evaluations/${id}`)).json())

    const first = await create()
    const cancelled = await create()
    const requeued = await create()
    await until(
      () => server.app.evaluations.childPid(first.id) !== undefined,
      'the first evaluation’s process',
    )
    const pid = server.app.evaluations.childPid(first.id)!
    const c = Evaluation.parse(await (await post(`/api/evaluations/${cancelled.id}/cancel`)).json())
    expect(c).toMatchObject({ status: 'cancelled', startedAt: null, error: { code: 'EVALUATION_CANCELLED' } })

    await restart()
    await until(() => !isAlive(pid), 'the interrupted evaluation’s process to exit', 10_000)
    expect(await get(first.id)).toMatchObject({ status: 'interrupted', error: { code: 'INTERRUPTED' } })
    await until(() => server.app.evaluations.childPid(requeued.id) !== undefined, 'the re-queued evaluation')
    const second = server.app.evaluations.childPid(requeued.id)!
    const stopped = Evaluation.parse(await (await post(`/api/evaluations/${requeued.id}/cancel`)).json())
    expect(stopped).toMatchObject({ status: 'cancelled', error: { code: 'EVALUATION_CANCELLED' } })
    await until(() => !isAlive(second), 'the cancelled evaluation’s process to exit', 10_000)
  }, 180_000)

  it('imports: two run at once, a third waits and is deleted unstarted; a restart fails the running ones INTERRUPTED', async () => {
    const uploads = join(home.home, 'uploads')
    // 4,000,000 × 16 float32 (256 MB): long enough to be running when the server stops.
    const source = join(uploads, 'job-kinds-source.npy')
    await writeFile(source, npyFloat32(makeVectors(4_000_000, 16, 5)))
    const files = [1, 2, 3].map((i) => join(uploads, `job-kinds-${i}.npy`))
    for (const file of files) await link(source, file)
    const sourceBytes = (await readFile(source)).length
    const started = await Promise.all(
      files.map((uploadPath, i) =>
        server.app.datasets.startImport({
          name: `big-${i}`,
          format: 'npy',
          uploadPath,
          uploadId: `job-kinds-${i}`,
          sourceBytes,
        }),
      ),
    )
    const [a, b, waiting] = started.map((d) => d.id) as [string, string, string]
    await server.app.datasets.remove(waiting)
    expect(server.app.datasets.importPid(waiting)).toBeUndefined()
    expect(existsSync(files[2]!)).toBe(false)
    expect((await fetch(`${server.url}/api/datasets/${waiting}`)).status).toBe(404)

    await until(
      () => server.app.datasets.importPid(a) !== undefined && server.app.datasets.importPid(b) !== undefined,
      'both import children',
    )
    const pids = [a, b].map((id) => server.app.datasets.importPid(id)!)
    await restart()
    expect(pids.filter(isAlive)).toEqual([])
    for (const id of [a, b]) {
      const after = Dataset.parse(await (await fetch(`${server.url}/api/datasets/${id}`)).json())
      expect(after).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED' } })
    }
    expect(files.filter((f) => existsSync(f))).toEqual([])
  }, 120_000)

  it('simulations: a restart refuses the running and the waiting what-if, and the next server runs new ones', async () => {
    const papers = papersTopology()
    const job = (bytes: number, algorithm: 'chain' | 'chain-random', nodes: number) => ({
      kind: 'broadcast' as const,
      topology: papers,
      request: { topology: papers, bytes, algorithms: [algorithm], nodes: [nodes] },
    })
    const running = server.app.simulations.run(job(1e9, 'chain-random', 150))
    const waiting = server.app.simulations.run(job(1e6, 'chain', 10))
    await until(() => server.app.simulations.pid() !== undefined, 'the simulation process')
    const pid = server.app.simulations.pid()!
    const refusals = Promise.all([
      expect(running).rejects.toMatchObject({ code: 'SIM_CLOSED' }),
      expect(waiting).rejects.toMatchObject({ code: 'SIM_CLOSED' }),
    ])
    await restart()
    await refusals
    expect(isAlive(pid)).toBe(false)
    const result = (await server.app.simulations.run(job(1e6, 'chain', 10))) as { results: unknown[] }
    expect(result.results).toHaveLength(1)
  }, 60_000)
})
