import { generateTopology } from '@codebook/runtime/topology'
import { Dataset, IterationReport, JobEventList, Run, RunLogData } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../start-server.ts'
import { makeVectors, npyFloat32 } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'

describe('runs placed on a saved topology', () => {
  let server: RunningServer
  let cleanup: () => Promise<void>
  let datasetId: string

  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  beforeAll(async () => {
    const h = await makeTempHome()
    server = await startServer(testConfig(h.home, undefined))
    cleanup = async () => {
      await server.close()
      await h.remove()
    }
    const v = makeVectors(300, 8, 5)
    const res = await fetch(`${server.url}/api/datasets?name=topo&format=npy&wait=true`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/octet-stream' },
      body: npyFloat32(v),
    })
    datasetId = Dataset.parse(await res.json()).id
  })
  afterAll(() => cleanup())

  it('puts workers on the racks of the pinned topology version and counts cross-rack bytes by them', async () => {
    const topology = generateTopology({ racks: 2, nodesPerRack: 1, nodeGbps: 1, uplinkGbps: 10 })
    const saved = await post('/api/topologies', { topology })
    expect(saved.status).toBe(201)
    const { id: topologyId, version } = (await saved.json()) as { id: string; version: number }
    expect(version).toBe(1)

    const k = 4
    const d = 8
    const body = { datasetId, k, maxIterations: 2, workers: 2, kernel: 'reference', tol: 0, topologyId }
    const res = await post('/api/runs', body)
    expect(res.status).toBe(201)
    const run = Run.parse(await res.json())
    // The run records the version it was launched with.
    expect(run.params.topologyVersion).toBe(1)
    // A later save does not change what the run used.
    const v2 = await post(`/api/topologies/${topologyId}/versions`, {
      topology: { ...topology, name: 'renamed' },
    })
    expect(v2.status).toBe(201)

    expect((await server.app.runs.settled(run.id)).status).toBe('succeeded')
    const events = JobEventList.parse(
      await (await fetch(`${server.url}/api/runs/${run.id}/events`)).json(),
    ).events
    const reports = events.filter((e) => e.type === 'iteration').map((e) => IterationReport.parse(e.data))
    const racks = topology.sites[0]!.racks.map((r) => r.name)
    for (const r of reports) {
      expect(r.workers.map((w) => w.rack)).toEqual(racks)
      // Chain broadcast from rank 0 to rank 1 on the other rack: every centroid byte crosses racks once.
      expect(r.stages.broadcast.crossRackBytes).toBe(k * d * 4)
      expect(r.stages.broadcast.intraRackBytes).toBe(0)
    }

    // The same run without a topology: one rack, nothing crosses.
    const flat = Run.parse(await (await post('/api/runs', { ...body, topologyId: undefined })).json())
    expect((await server.app.runs.settled(flat.id)).status).toBe('succeeded')
    const flatEvents = JobEventList.parse(
      await (await fetch(`${server.url}/api/runs/${flat.id}/events`)).json(),
    )
    const flatReport = IterationReport.parse(flatEvents.events.find((e) => e.type === 'iteration')!.data)
    expect(flatReport.stages.broadcast.crossRackBytes).toBe(0)
    expect(flatReport.stages.broadcast.intraRackBytes).toBe(k * d * 4)
  })

  it('puts worker i on the rack of node mapping[i], so chain order and cross-rack bytes follow the plan', async () => {
    // rack-0: node-0, node-1; rack-1: node-2, node-3. In order, 3 workers would be rack-0, rack-0, rack-1.
    const topology = generateTopology({ racks: 2, nodesPerRack: 2, nodeGbps: 1, uplinkGbps: 10 })
    const { id: topologyId } = (await (await post('/api/topologies', { topology })).json()) as { id: string }
    const k = 4
    const d = 8
    const mapping = ['node-2', 'node-0', 'node-3']
    const body = { datasetId, k, maxIterations: 1, workers: 3, kernel: 'reference', tol: 0, topologyId }
    const res = await post('/api/runs', {
      ...body,
      broadcast: 'chain',
      chainOrder: 'rank',
      mapping,
      mappingPlanner: 'geo',
    })
    expect(res.status).toBe(201)
    const run = Run.parse(await res.json())
    expect(run.params.mapping).toEqual(mapping)
    expect((await server.app.runs.settled(run.id)).status).toBe('succeeded')
    const events = JobEventList.parse(
      await (await fetch(`${server.url}/api/runs/${run.id}/events`)).json(),
    ).events
    const logs = events.filter((e) => e.type === 'log').map((e) => RunLogData.parse(e.data).message)
    expect(logs.some((m) => m.includes('placed by geo'))).toBe(true)
    const report = IterationReport.parse(events.find((e) => e.type === 'iteration')!.data)
    expect(report.workers.map((w) => w.rack)).toEqual(['rack-1', 'rack-0', 'rack-1'])
    // Chain in rank order 0 → 1 → 2: both hops cross racks (in node order only the second would).
    expect(report.stages.broadcast.crossRackBytes).toBe(2 * k * d * 4)
    expect(report.stages.broadcast.intraRackBytes).toBe(0)
  })

  it('refuses mappings naming unknown nodes, of the wrong length, or without a topology (400, coded)', async () => {
    const topology = generateTopology({ racks: 2, nodesPerRack: 1, nodeGbps: 1, uplinkGbps: 10 })
    const { id: topologyId } = (await (await post('/api/topologies', { topology })).json()) as { id: string }
    const body = { datasetId, k: 2, maxIterations: 1, workers: 2, kernel: 'reference', topologyId }
    const cases: [unknown, string][] = [
      [{ ...body, mapping: ['node-0', 'node-7'] }, 'MAPPING_UNKNOWN_NODE'],
      [{ ...body, mapping: ['node-0'] }, 'MAPPING_LENGTH'],
      [{ ...body, topologyId: undefined, mapping: ['node-0', 'node-1'] }, 'MAPPING_NEEDS_TOPOLOGY'],
    ]
    for (const [bad, code] of cases) {
      const res = await post('/api/runs', bad)
      expect(res.status).toBe(400)
      const answer = (await res.json()) as { code: string; message: string }
      expect(answer.code).toBe(code)
      if (code === 'MAPPING_UNKNOWN_NODE') expect(answer.message).toContain("'node-7'")
    }
  })

  it('refuses unknown topologies and topologies with fewer nodes than workers', async () => {
    const unknown = await post('/api/runs', {
      datasetId,
      k: 2,
      maxIterations: 1,
      workers: 1,
      topologyId: 'nope',
    })
    expect(unknown.status).toBe(404)
    const small = generateTopology({ racks: 1, nodesPerRack: 2, nodeGbps: 1, uplinkGbps: 10 })
    const { id } = (await (await post('/api/topologies', { topology: small })).json()) as { id: string }
    const tooMany = await post('/api/runs', { datasetId, k: 2, maxIterations: 1, workers: 3, topologyId: id })
    expect(tooMany.status).toBe(400)
    expect(await tooMany.json()).toMatchObject({ code: 'TOPOLOGY_TOO_SMALL' })
  })
})
