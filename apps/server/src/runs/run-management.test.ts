import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import {
  Dataset,
  ErrorBody,
  JobEventList,
  Run,
  type RunChanged,
  RunIterations,
  RunList,
  serverEventSchemas,
  socketEvents,
  VocabularyExportJson,
  VocabularySummary,
} from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { connected, eventClient } from '../test-support/event-client.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'
import { ITERATIONS_CSV_HEADER } from './run-iterations.ts'

/** Resolves once `check` holds, polling every 20 ms (fails the test after 20 s). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe.each(testDrivers())('run management on $name', (driver) => {
  let server: RunningServer
  let home: string
  let cleanup: () => Promise<void>
  let datasetId: string
  let otherDatasetId: string
  const small = makeVectors(200, 6, 11)
  const base = { k: 4, maxIterations: 3, workers: 1, kernel: 'reference', tol: 0 }

  async function call(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method,
      ...(body === undefined
        ? { headers: authHeaders }
        : { headers: { ...authHeaders, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
  }

  async function expectError(res: Response, status: number, code: string): Promise<string> {
    expect(res.status).toBe(status)
    const body = ErrorBody.parse(await res.json())
    expect(body.code).toBe(code)
    return body.message
  }

  async function upload(name: string): Promise<string> {
    const res = await fetch(`${server.url}/api/datasets?name=${name}&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      body: npyFloat32(small),
    })
    expect(res.status).toBe(201)
    return Dataset.parse(await res.json()).id
  }

  async function finishedRun(body: Record<string, unknown> = {}): Promise<Run> {
    const res = await call('POST', '/api/runs', { datasetId, ...base, ...body })
    expect(res.status).toBe(201)
    return server.app.runs.settled(Run.parse(await res.json()).id)
  }

  async function list(query: string): Promise<Run[]> {
    const res = await fetch(`${server.url}/api/runs?${query}`)
    expect(res.status).toBe(200)
    return RunList.parse(await res.json()).runs
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
    datasetId = await upload('cats')
    otherDatasetId = await upload('dogs')
  })
  afterAll(() => cleanup())

  it('renames, notes and tags a run; refuses bad labels with coded errors', async () => {
    const run = await finishedRun()
    expect(run).toMatchObject({ name: null, notes: '', tags: [] })
    const res = await call('PATCH', `/api/runs/${run.id}`, {
      name: '  baseline k=4 ',
      notes: 'first try\nwith tol 0',
      tags: ['baseline', 'k4', 'baseline'],
    })
    expect(res.status).toBe(200)
    expect(Run.parse(await res.json())).toMatchObject({
      id: run.id,
      name: 'baseline k=4',
      notes: 'first try\nwith tol 0',
      tags: ['baseline', 'k4'],
    })
    // Only what is given changes; null clears the name.
    const renamed = Run.parse(await (await call('PATCH', `/api/runs/${run.id}`, { name: null })).json())
    expect(renamed).toMatchObject({ name: null, notes: 'first try\nwith tol 0', tags: ['baseline', 'k4'] })
    expect(Run.parse(await (await fetch(`${server.url}/api/runs/${run.id}`)).json()).tags).toEqual([
      'baseline',
      'k4',
    ])

    const tooMany = Array.from({ length: 33 }, (_, i) => `t${i}`)
    for (const body of [
      { tags: ['x'.repeat(41)] },
      { tags: tooMany },
      { tags: [''] },
      { tags: ['line\nbreak'] },
      { name: '' },
      { name: 'x'.repeat(201) },
      { notes: 'x'.repeat(10_001) },
      { notes: 'bell\u0007' },
      {},
      { name: 'ok', status: 'succeeded' },
    ])
      await expectError(await call('PATCH', `/api/runs/${run.id}`, body), 400, 'VALIDATION_FAILED')
    // A NUL is refused earlier, by the NUL guard.
    await expectError(await call('PATCH', `/api/runs/${run.id}`, { tags: ['a\u0000b'] }), 400, 'NUL_IN_INPUT')
    await expectError(await call('PATCH', '/api/runs/no-such-run', { name: 'x' }), 404, 'RUN_NOT_FOUND')
    await expectError(await call('PATCH', '/api/runs/bad%20id', { name: 'x' }), 400, 'INVALID_ID')
    // Writes need the token.
    const anonymous = await fetch(`${server.url}/api/runs/${run.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    })
    expect(anonymous.status).toBe(401)
  })

  it('filters the list by tag, dataset, status, k, text and date, AND-ed and still paged', async () => {
    const a = await finishedRun({ k: 3 })
    const b = await finishedRun({ k: 5 })
    const c = await finishedRun({ datasetId: otherDatasetId, k: 3 })
    await call('PATCH', `/api/runs/${a.id}`, { tags: ['sweep', 'k3'], notes: 'Looks 100% right' })
    await call('PATCH', `/api/runs/${b.id}`, { tags: ['sweep'], name: 'Wide one' })
    await call('PATCH', `/api/runs/${c.id}`, { tags: ['sweep', 'k3'] })
    const ids = (runs: Run[]) => runs.map((r) => r.id)

    expect(ids(await list('tag=sweep'))).toEqual([c.id, b.id, a.id])
    expect(ids(await list('tag=k3'))).toEqual([c.id, a.id])
    expect(ids(await list(`tag=k3&datasetId=${datasetId}`))).toEqual([a.id])
    expect(ids(await list('tag=sweep&k=5'))).toEqual([b.id])
    expect(ids(await list('tag=sweep&status=succeeded'))).toEqual([c.id, b.id, a.id])
    expect(await list('tag=sweep&status=running')).toEqual([])
    expect(ids(await list('q=wide'))).toEqual([b.id])
    // `%` is literal text, not a wildcard; the dataset's name matches too.
    expect(ids(await list('q=100%25'))).toEqual([a.id])
    expect(await list('q=1%25%25')).toEqual([])
    expect(ids(await list('tag=sweep&q=DOGS'))).toEqual([c.id])
    expect(ids(await list(`tag=sweep&createdAfter=${encodeURIComponent(b.createdAt)}`))).toEqual([c.id, b.id])
    expect(ids(await list(`tag=sweep&createdBefore=${encodeURIComponent(b.createdAt)}`))).toEqual([a.id])
    expect(await list('tag=nothing-has-this')).toEqual([])

    // Pages with a filter: the cursor continues inside the filtered list.
    const page1 = RunList.parse(await (await fetch(`${server.url}/api/runs?tag=sweep&limit=2`)).json())
    expect(ids(page1.runs)).toEqual([c.id, b.id])
    expect(page1.nextBefore).toBe(b.id)
    const page2 = RunList.parse(
      await (await fetch(`${server.url}/api/runs?tag=sweep&limit=2&before=${page1.nextBefore}`)).json(),
    )
    expect(ids(page2.runs)).toEqual([a.id])
    expect(page2.nextBefore).toBeNull()

    for (const query of [
      'status=done',
      'k=zero',
      'k=0',
      `tag=${'x'.repeat(41)}`,
      'createdAfter=yesterday',
      `q=${'x'.repeat(201)}`,
    ])
      await expectError(await fetch(`${server.url}/api/runs?${query}`), 400, 'VALIDATION_FAILED')
    await expectError(await fetch(`${server.url}/api/runs?datasetId=a/b`), 400, 'INVALID_ID')
  })

  it('lists per-iteration metrics as JSON and CSV, inertia at full precision', async () => {
    const run = await finishedRun({ maxIterations: 4 })
    const res = await fetch(`${server.url}/api/runs/${run.id}/iterations`)
    expect(res.status).toBe(200)
    const { runId, iterations } = RunIterations.parse(await res.json())
    expect(runId).toBe(run.id)
    const { events } = JobEventList.parse(
      await (await fetch(`${server.url}/api/runs/${run.id}/events`)).json(),
    )
    const reports = events.filter((e) => e.type === 'iteration').map((e) => e.data as Record<string, never>)
    expect(iterations.map((r) => r.iteration)).toEqual(reports.map((r) => r.iteration))
    for (const [i, row] of iterations.entries()) {
      const report = reports[i] as unknown as {
        inertia: number
        reassigned: number
        stages: Record<string, { ms: number; bytes: number }>
      }
      expect(row.inertia).toBe(report.inertia)
      expect(row.reassigned).toBe(report.reassigned)
      expect(row.stages.map).toEqual({ ms: report.stages.map!.ms, bytes: report.stages.map!.bytes })
    }
    expect(iterations.at(-1)!.inertia).toBe(run.inertia)

    const csv = await fetch(`${server.url}/api/runs/${run.id}/iterations?format=csv`)
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(csv.headers.get('content-disposition')).toContain(`run-${run.id}-iterations.csv`)
    const lines = (await csv.text()).trimEnd().split('\n')
    expect(lines[0]).toBe(ITERATIONS_CSV_HEADER)
    expect(lines[0]).toBe(
      'iteration,inertia,reassigned,broadcast_ms,broadcast_bytes,map_ms,map_bytes,shuffle_ms,shuffle_bytes,reduce_ms,reduce_bytes,combine_ms,combine_bytes',
    )
    expect(lines.length).toBe(iterations.length + 1)
    for (const [i, line] of lines.slice(1).entries()) {
      const cells = line.split(',')
      expect(Number(cells[0])).toBe(iterations[i]!.iteration)
      // The float64 reads back exactly.
      expect(Number(cells[1])).toBe(iterations[i]!.inertia)
    }

    await expectError(
      await fetch(`${server.url}/api/runs/${run.id}/iterations?format=xml`),
      400,
      'VALIDATION_FAILED',
    )
    await expectError(await fetch(`${server.url}/api/runs/nope/iterations`), 404, 'RUN_NOT_FOUND')
    await expectError(await fetch(`${server.url}/api/runs/a.b/iterations`), 400, 'INVALID_ID')
  })

  it('clones a run: its params, with the fields given changed', async () => {
    const source = await finishedRun({ k: 3, seed: 7, encoding: 'float16' })
    const res = await call('POST', '/api/runs', { cloneOf: source.id, k: 5 })
    expect(res.status).toBe(201)
    const clone = Run.parse(await res.json())
    expect(clone.id).not.toBe(source.id)
    expect(clone.params).toEqual({ ...source.params, k: 5 })
    expect(clone).toMatchObject({ name: null, notes: '', tags: [] })
    await server.app.runs.settled(clone.id)

    await expectError(await call('POST', '/api/runs', { cloneOf: 'no-such-run' }), 404, 'RUN_NOT_FOUND')
    await expectError(await call('POST', '/api/runs', { cloneOf: '../etc' }), 400, 'INVALID_ID')
    await expectError(await call('POST', '/api/runs', { cloneOf: 42 }), 400, 'INVALID_ID')
    // Overrides are checked like any body.
    await expectError(
      await call('POST', '/api/runs', { cloneOf: source.id, encoding: 'float8' }),
      400,
      'VALIDATION_FAILED',
    )
    await expectError(await call('POST', '/api/runs', { cloneOf: source.id, k: 10_000 }), 400, 'KMEANS_BAD_K')
  })

  it('deletes a run with its events and checkpoints, keeping or deleting its vocabulary', async () => {
    const kept = await finishedRun()
    const dropped = await finishedRun()
    expect(kept.vocabularyId).toBeTruthy()
    expect(dropped.vocabularyId).toBeTruthy()
    // Cached assignments of the kept vocabulary survive its run.
    const assignments = await fetch(
      `${server.url}/api/vocabularies/${kept.vocabularyId}/assignments?format=csv`,
    )
    expect(assignments.status).toBe(200)
    await assignments.text()
    const jsonBefore = VocabularyExportJson.parse(
      await (await fetch(`${server.url}/api/vocabularies/${kept.vocabularyId}/export?format=json`)).json(),
    )

    expect((await call('DELETE', `/api/runs/${kept.id}?vocabulary=keep`)).status).toBe(204)
    expect((await call('DELETE', `/api/runs/${dropped.id}?vocabulary=delete`)).status).toBe(204)

    for (const run of [kept, dropped]) {
      await expectError(await fetch(`${server.url}/api/runs/${run.id}`), 404, 'RUN_NOT_FOUND')
      await expectError(await fetch(`${server.url}/api/runs/${run.id}/events`), 404, 'RUN_NOT_FOUND')
      expect(await server.app.jobFeed.eventsAfter('run', run.id, 0)).toEqual([])
    }
    expect(await readdir(join(home, 'runs', kept.id))).toEqual(['assignments'])
    await expect(stat(join(home, 'runs', dropped.id))).rejects.toThrow()

    // The kept vocabulary is still listed, exported and assigned, with its dataset and inertia.
    const summary = VocabularySummary.parse(
      await (await fetch(`${server.url}/api/vocabularies/${kept.vocabularyId}`)).json(),
    )
    expect(summary).toMatchObject({ runId: kept.id, datasetId, datasetName: 'cats', inertia: kept.inertia })
    const jsonAfter = VocabularyExportJson.parse(
      await (await fetch(`${server.url}/api/vocabularies/${kept.vocabularyId}/export?format=json`)).json(),
    )
    expect(jsonAfter).toEqual(jsonBefore)
    expect(
      (await fetch(`${server.url}/api/vocabularies/${kept.vocabularyId}/assignments?format=csv`)).status,
    ).toBe(200)
    await expectError(
      await fetch(`${server.url}/api/vocabularies/${dropped.vocabularyId}`),
      404,
      'VOCABULARY_NOT_FOUND',
    )
    await expect(stat(join(home, 'vocabularies', `${dropped.vocabularyId}.npy`))).rejects.toThrow()

    await expectError(await call('DELETE', `/api/runs/${kept.id}`), 404, 'RUN_NOT_FOUND')
    await expectError(await call('DELETE', '/api/runs/x%2Fy'), 400, 'INVALID_ID')
    await expectError(await call('DELETE', `/api/runs/${kept.id}?vocabulary=maybe`), 400, 'VALIDATION_FAILED')
  })

  it('cancels a running run before deleting it, and tells every client about runs created, changed and deleted', async () => {
    const socket = eventClient(server.url)
    const changes: RunChanged[] = []
    socket.on(socketEvents.runChanged, (raw) =>
      changes.push(serverEventSchemas[socketEvents.runChanged].parse(raw)),
    )
    await connected(socket)
    try {
      const big = makeVectors(20_000, 16, 12)
      const res = await fetch(`${server.url}/api/datasets?name=big&format=npy&wait=true`, {
        method: 'POST',
        headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
        body: npyFloat32(big),
      })
      const bigId = Dataset.parse(await res.json()).id
      const created = Run.parse(
        await (
          await call('POST', '/api/runs', {
            ...base,
            datasetId: bigId,
            k: 64,
            maxIterations: 100_000,
            workers: 2,
          })
        ).json(),
      )
      await until(
        async () =>
          Run.parse(await (await fetch(`${server.url}/api/runs/${created.id}`)).json()).iteration > 0,
        'the run to iterate',
      )
      await call('PATCH', `/api/runs/${created.id}`, { tags: ['live'] })
      const pids = server.app.runs.workerPids(created.id)
      expect(pids.length).toBeGreaterThan(0)
      expect((await call('DELETE', `/api/runs/${created.id}`)).status).toBe(204)
      // Its workers were gone before the answer.
      for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow()
      await expectError(await fetch(`${server.url}/api/runs/${created.id}`), 404, 'RUN_NOT_FOUND')
      await until(() => changes.some((c) => c.change === 'deleted'), 'the deleted event')
      const mine = changes.filter((c) => c.id === created.id).map((c) => c.change)
      // queued, running, labels, cancelled (state), deleted.
      expect(mine[0]).toBe('state')
      expect(mine).toContain('labels')
      expect(mine.filter((c) => c === 'state').length).toBeGreaterThanOrEqual(3)
      expect(mine.at(-1)).toBe('deleted')
    } finally {
      socket.close()
    }
  }, 60_000)
})
