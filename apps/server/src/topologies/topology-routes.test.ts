import { ErrorBody, type Topology, TopologyList, TopologyRecord, TopologyVersionList } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { authHeaders, makeTempHome, testConfig, testDrivers } from '../test-support/test-server.ts'
import { createTopologyRepo } from './topology-repo.ts'
import { DEMO_TOPOLOGY_NAME, papersTopology, seedDemoTopology } from './topology-seed.ts'

/** A small two-rack topology, written out by hand. */
function twoRacks(name = 'lab', nic = 1): Topology {
  const node = (n: string) => ({ name: n, host: n, slots: 2, nicGbps: nic })
  return {
    version: 1,
    name,
    sites: [
      {
        name: 'dc',
        racks: [
          { name: 'r0', uplinkGbps: 10, nodes: [node('a0'), node('a1')] },
          { name: 'r1', uplinkGbps: 10, nodes: [node('b0'), node('b1'), node('b2')] },
        ],
      },
    ],
  }
}

describe.each(testDrivers())('topologies API on $name', (driver) => {
  let app: FastifyInstance
  let cleanup: () => Promise<void>

  beforeAll(async () => {
    const home = await makeTempHome()
    const db = await driver.create()
    app = await buildApp(testConfig(home.home, db.databaseUrl))
    cleanup = async () => {
      await app.close()
      await db.drop()
      await home.remove()
    }
  })
  afterAll(() => cleanup())

  const post = (url: string, payload: unknown) =>
    app.inject({ method: 'POST', url, headers: authHeaders, payload: payload as object })

  it('creates version 1, saves version 2, lists both, and keeps version 1 as it was', async () => {
    const v1 = twoRacks('lab')
    const created = await post('/api/topologies', { topology: v1, message: 'first' })
    expect(created.statusCode).toBe(201)
    const r1 = TopologyRecord.parse(created.json())
    expect(r1).toMatchObject({ name: 'lab', version: 1, latestVersion: 1, message: 'first', topology: v1 })

    const v2 = twoRacks('lab renamed', 25)
    const saved = await post(`/api/topologies/${r1.id}/versions`, { topology: v2 })
    expect(saved.statusCode).toBe(201)
    const r2 = TopologyRecord.parse(saved.json())
    expect(r2).toMatchObject({ id: r1.id, name: 'lab renamed', version: 2, latestVersion: 2, message: null })
    expect(r2.topology).toEqual(v2)

    const versions = TopologyVersionList.parse(
      (await app.inject({ url: `/api/topologies/${r1.id}/versions` })).json(),
    ).versions
    expect(versions.map((v) => [v.version, v.message])).toEqual([
      [2, null],
      [1, 'first'],
    ])

    const old = TopologyRecord.parse(
      (await app.inject({ url: `/api/topologies/${r1.id}/versions/1` })).json(),
    )
    expect(old).toMatchObject({ version: 1, latestVersion: 2, name: 'lab renamed', message: 'first' })
    expect(old.topology).toEqual(v1)
    expect(old.createdAt).toBe(r1.createdAt)

    const latest = TopologyRecord.parse((await app.inject({ url: `/api/topologies/${r1.id}` })).json())
    expect(latest).toEqual(r2)
    expect(await app.topologies.getVersion(r1.id, 1)).toEqual({ topology: v1, version: 1 })
    expect(await app.topologies.getVersion(r1.id)).toEqual({ topology: v2, version: 2 })

    const list = TopologyList.parse((await app.inject({ url: '/api/topologies' })).json()).topologies
    expect(list.find((t) => t.id === r1.id)).toMatchObject({
      name: 'lab renamed',
      latestVersion: 2,
      sites: 1,
      racks: 2,
      nodes: 5,
    })

    const missing = await app.inject({ url: `/api/topologies/${r1.id}/versions/3` })
    expect(missing.statusCode).toBe(404)
    expect(ErrorBody.parse(missing.json())).toMatchObject({ code: 'TOPOLOGY_NOT_FOUND' })
    expect(missing.json().message).toContain('no version 3')
  })

  it('lists the most recently saved first, and deletes a topology with its versions', async () => {
    const a = TopologyRecord.parse((await post('/api/topologies', { topology: twoRacks('a') })).json())
    const b = TopologyRecord.parse((await post('/api/topologies', { topology: twoRacks('b') })).json())
    await post(`/api/topologies/${a.id}/versions`, { topology: twoRacks('a') })
    const ids = TopologyList.parse((await app.inject({ url: '/api/topologies' })).json()).topologies.map(
      (t) => t.id,
    )
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id))

    const del = await app.inject({ method: 'DELETE', url: `/api/topologies/${a.id}`, headers: authHeaders })
    expect(del.statusCode).toBe(204)
    for (const url of [`/api/topologies/${a.id}`, `/api/topologies/${a.id}/versions`]) {
      const res = await app.inject({ url })
      expect(res.statusCode).toBe(404)
      expect(res.json().code).toBe('TOPOLOGY_NOT_FOUND')
    }
    await expect(app.topologies.getVersion(a.id)).rejects.toMatchObject({
      code: 'TOPOLOGY_NOT_FOUND',
      statusCode: 404,
    })
    const again = await app.inject({ method: 'DELETE', url: `/api/topologies/${a.id}`, headers: authHeaders })
    expect(again.statusCode).toBe(404)
  })

  it('gives concurrent saves distinct, consecutive versions', async () => {
    const r = TopologyRecord.parse((await post('/api/topologies', { topology: twoRacks('busy') })).json())
    const saves = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(`/api/topologies/${r.id}/versions`, { topology: twoRacks('busy', i + 1), message: `save ${i}` }),
      ),
    )
    expect(saves.map((s) => s.statusCode)).toEqual(Array(12).fill(201))
    const records = saves.map((s) => TopologyRecord.parse(s.json()))
    expect(records.map((x) => x.version).sort((p, q) => p - q)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 2),
    )
    // Each stored version holds the body its own save sent.
    for (const rec of records) {
      const stored = TopologyRecord.parse(
        (await app.inject({ url: `/api/topologies/${r.id}/versions/${rec.version}` })).json(),
      )
      expect(stored.message).toBe(rec.message)
      expect(stored.topology).toEqual(rec.topology)
    }
    const versions = TopologyVersionList.parse(
      (await app.inject({ url: `/api/topologies/${r.id}/versions` })).json(),
    ).versions
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 13 }, (_, i) => 13 - i))
  })

  it('answers 400 INVALID_TOPOLOGY naming the path of every issue', async () => {
    const bad = twoRacks('bad')
    bad.sites[0]!.racks[1]!.nodes = []
    bad.sites[0]!.racks[0]!.nodes[1]!.name = 'a0'
    const res = await post('/api/topologies', { topology: bad })
    expect(res.statusCode).toBe(400)
    const body = ErrorBody.parse(res.json())
    expect(body.code).toBe('INVALID_TOPOLOGY')
    expect(body.message).toContain("topology.sites.0.racks.1.nodes: rack 'r1' has no nodes")
    expect(body.message).toContain("topology.sites.0.racks.0.nodes.1.name: duplicate node name 'a0'")

    const negative = twoRacks('neg', -1)
    const res2 = await post('/api/topologies', { topology: negative })
    expect(res2.json()).toMatchObject({ code: 'INVALID_TOPOLOGY' })
    expect(res2.json().message).toContain(
      'topology.sites.0.racks.0.nodes.0.nicGbps: nicGbps must be a positive number',
    )

    const r = TopologyRecord.parse((await post('/api/topologies', { topology: twoRacks('ok') })).json())
    const res3 = await post(`/api/topologies/${r.id}/versions`, {
      topology: { version: 1, name: 'x', sites: [] },
    })
    expect(res3.statusCode).toBe(400)
    expect(res3.json().message).toBe('topology.sites: a topology needs at least one site')
    // The failed save left no version behind.
    expect((await app.topologies.getVersion(r.id)).version).toBe(1)
  })

  it('needs the API token for every write', async () => {
    const r = TopologyRecord.parse((await post('/api/topologies', { topology: twoRacks('guarded') })).json())
    const writes = [
      { method: 'POST' as const, url: '/api/topologies', payload: { topology: twoRacks() } },
      { method: 'POST' as const, url: `/api/topologies/${r.id}/versions`, payload: { topology: twoRacks() } },
      { method: 'DELETE' as const, url: `/api/topologies/${r.id}` },
      {
        method: 'POST' as const,
        url: '/api/topology-formats/parse',
        payload: { format: 'json', text: '{}' },
      },
    ]
    for (const w of writes) {
      const res = await app.inject(w)
      expect(res.statusCode, `${w.method} ${w.url}`).toBe(401)
      expect(res.json().code).toBe('UNAUTHORIZED')
    }
    expect((await app.topologies.getVersion(r.id)).version).toBe(1)
  })

  it('parses a Slurm topology.conf with hostlist ranges, and render → parse gives it back', async () => {
    const text = [
      '# two racks under one spine',
      'SwitchName=leaf0 Nodes=tux[0-2]',
      'SwitchName=leaf1 Nodes=tux[3-4],gpu7',
      'SwitchName=spine Switches=leaf[0-1]',
    ].join('\n')
    const res = await post('/api/topology-formats/parse', {
      format: 'slurm',
      text,
      name: 'cluster',
      slots: 4,
      nicGbps: 25,
      uplinkGbps: 100,
    })
    expect(res.statusCode).toBe(200)
    const node = (n: string) => ({ name: n, host: n, slots: 4, nicGbps: 25 })
    const expected: Topology = {
      version: 1,
      name: 'cluster',
      sites: [
        {
          name: 'spine',
          racks: [
            { name: 'leaf0', uplinkGbps: 100, nodes: ['tux0', 'tux1', 'tux2'].map(node) },
            { name: 'leaf1', uplinkGbps: 100, nodes: ['tux3', 'tux4', 'gpu7'].map(node) },
          ],
        },
      ],
    }
    expect(res.json().topology).toEqual(expected)

    for (const format of ['slurm', 'hadoop', 'json'] as const) {
      const rendered = await post('/api/topology-formats/render', { format, topology: expected })
      expect(rendered.statusCode).toBe(200)
      const back = await post('/api/topology-formats/parse', {
        format,
        text: rendered.json().text,
        name: 'cluster',
        slots: 4,
        nicGbps: 25,
        uplinkGbps: 100,
      })
      expect(back.json().topology, format).toEqual(expected)
    }
    const slurm = (await post('/api/topology-formats/render', { format: 'slurm', topology: expected })).json()
    expect(slurm.text).toBe(
      'SwitchName=leaf0 Nodes=tux[0-2]\nSwitchName=leaf1 Nodes=tux[3-4],gpu7\nSwitchName=spine Switches=leaf[0-1]\n',
    )
  })

  it('answers bad text with the runtime error code and its line', async () => {
    const slurm = await post('/api/topology-formats/parse', {
      format: 'slurm',
      text: 'SwitchName=s0 Nodes=a[0-1]\nSwitchName=s1 Nodes=a1\n',
    })
    expect(slurm.statusCode).toBe(400)
    expect(slurm.json()).toMatchObject({ code: 'TOPOLOGY_DUPLICATE_NAME' })
    expect(slurm.json().message).toMatch(/^line 2: node 'a1' already under a switch on line 1/)

    const json = await post('/api/topology-formats/parse', {
      format: 'json',
      text: '{\n  "version": 1,\n  oops\n}',
    })
    expect(json.statusCode).toBe(400)
    expect(json.json().code).toBe('TOPOLOGY_PARSE')
    expect(json.json().message).toMatch(/^line 3: /)

    const render = await post('/api/topology-formats/render', { format: 'slurm', topology: { name: 'x' } })
    expect(render.statusCode).toBe(400)
    expect(render.json().code).toBe('INVALID_TOPOLOGY')
  })

  it('seeds the papers-150 demo topology once', async () => {
    const repo = createTopologyRepo(app.db)
    const id = await seedDemoTopology({ repo, service: app.topologies, log: app.log })
    expect(id).toBeDefined()
    const t = TopologyList.parse((await app.inject({ url: '/api/topologies' })).json()).topologies.find(
      (x) => x.id === id,
    )
    expect(t).toMatchObject({ name: DEMO_TOPOLOGY_NAME, sites: 1, racks: 4, nodes: 150, latestVersion: 1 })
    const { topology } = await app.topologies.getVersion(id!)
    expect(topology).toEqual(papersTopology())
    expect(topology.sites[0]!.racks.map((r) => [r.nodes.length, r.uplinkGbps])).toEqual([
      [42, 10],
      [42, 10],
      [42, 10],
      [24, 10],
    ])
    expect(new Set(topology.sites[0]!.racks.flatMap((r) => r.nodes.map((n) => n.nicGbps)))).toEqual(
      new Set([1]),
    )

    await app.inject({ method: 'DELETE', url: `/api/topologies/${id}`, headers: authHeaders })
    expect(await seedDemoTopology({ repo, service: app.topologies, log: app.log })).toBeUndefined()
  })
})
