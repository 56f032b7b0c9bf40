import { generateTopology } from '@codebook/runtime'
import { Dataset, IterationReport, Run, RunEventList } from '@codebook/shared'
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
    const events = RunEventList.parse(
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
    const flatEvents = RunEventList.parse(
      await (await fetch(`${server.url}/api/runs/${flat.id}/events`)).json(),
    )
    const flatReport = IterationReport.parse(flatEvents.events.find((e) => e.type === 'iteration')!.data)
    expect(flatReport.stages.broadcast.crossRackBytes).toBe(0)
    expect(flatReport.stages.broadcast.intraRackBytes).toBe(k * d * 4)
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
