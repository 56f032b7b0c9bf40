import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { generateTopology } from '@codebook/runtime/topology'
import { Dataset, SimulateBroadcastResult, SimulateKmeansResult, type Topology } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { hogText, makeVectors } from '../test-support/payloads.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'
import { papersTopology } from './topology-seed.ts'

const RUN_CLI = fileURLToPath(new URL('../../../../packages/runtime/src/cli/entry.ts', import.meta.url))
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** The second path: `codebook simulate … --json` run from source as its own process. */
async function cli(args: string[]): Promise<unknown[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=@codebook/source', '--import', TSX, RUN_CLI, ...args],
    { maxBuffer: 16 * 1024 * 1024 },
  )
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
}

// The simulator is pure computation: PGlite alone is enough here (storage is tested in topology-routes.test.ts).
describe('what-if simulation API', () => {
  let app: FastifyInstance
  let home: Awaited<ReturnType<typeof makeTempHome>>
  let papersFile: string
  const papers = papersTopology()

  beforeAll(async () => {
    home = await makeTempHome()
    app = await buildApp(testConfig(home.home, undefined))
    papersFile = join(home.home, 'papers.json')
    await writeFile(papersFile, JSON.stringify(papers))
  })
  afterAll(async () => {
    await app.close()
    await home.remove()
  })

  const post = (url: string, payload: object) =>
    app.inject({ method: 'POST', url, headers: authHeaders, payload })

  it('predicts broadcasts over HTTP exactly as `codebook simulate broadcast` does, and near the papers', async () => {
    const res = await post('/api/simulate/broadcast', {
      topology: papers,
      bytes: 1e9,
      algorithms: ['chain', 'simple'],
      nodes: [50, 150],
    })
    expect(res.statusCode).toBe(200)
    const { results } = SimulateBroadcastResult.parse(res.json())
    const fromCli = await cli([
      'simulate',
      'broadcast',
      '--topology',
      papersFile,
      '--bytes',
      '1000000000',
      '--algorithms',
      'chain,simple',
      '--nodes',
      '50,150',
      '--json',
    ])
    expect(results).toEqual(fromCli)
    expect(results.map((r) => [r.algorithm, r.nodes])).toEqual([
      ['chain', 50],
      ['simple', 50],
      ['chain', 150],
      ['simple', 150],
    ])
    const at = (algorithm: string, nodes: number) =>
      results.find((r) => r.algorithm === algorithm && r.nodes === nodes)!.seconds
    // The papers: a pipelined chain of 1 GB over 1 GbE takes ≈ 8.3 s whatever the node count …
    expect(Math.abs(at('chain', 150) / 8.3 - 1)).toBeLessThan(0.05)
    // … and never less than one link's time nβ = 1e9 B / 125 MB/s = 8 s.
    expect(at('chain', 150)).toBeGreaterThan(8)
    // Simple: the root's 1 GbE NIC carries p − 1 copies: (p − 1) · nβ.
    expect(at('simple', 150) / (149 * 8)).toBeCloseTo(1, 2)
    expect(at('simple', 50) / (49 * 8)).toBeCloseTo(1, 2)
    // The rack-ordered chain crosses each of the 3 rack boundaries once.
    expect(results.find((r) => r.algorithm === 'chain' && r.nodes === 150)!.crossRackBytes).toBe(3e9)
  })

  it('shows a random chain order crossing the racks far more often than the rack-ordered chain', async () => {
    // 100 MB keeps the random chain quick to simulate (its contended uplinks make many events).
    const res = await post('/api/simulate/broadcast', {
      topology: papers,
      bytes: 1e8,
      algorithms: ['chain', 'chain-random'],
      seed: 1,
    })
    const [chain, random] = SimulateBroadcastResult.parse(res.json()).results
    expect(chain).toMatchObject({ algorithm: 'chain', nodes: 150, crossRackBytes: 3e8 })
    expect(random!.algorithm).toBe('chain-random')
    expect(random!.crossRackBytes).toBeGreaterThan(20 * chain!.crossRackBytes)
    expect(random!.seconds).toBeGreaterThan(1.5 * chain!.seconds)
  })

  it('predicts one K-means iteration as `codebook simulate kmeans` does, from n and d or a dataset', async () => {
    const body = { topology: papers, n: 30, d: 7, k: 5, nodes: 100, aggregation: 'ring' }
    const res = await post('/api/simulate/kmeans', body)
    expect(res.statusCode, res.body).toBe(200)
    const prediction = SimulateKmeansResult.parse(res.json())
    const [fromCli] = (await cli([
      'simulate',
      'kmeans',
      '--topology',
      papersFile,
      '--n',
      '30',
      '--d',
      '7',
      '--k',
      '5',
      '--nodes',
      '100',
      '--aggregation',
      'ring',
      '--json',
    ])) as [Record<string, unknown>]
    const { topology: _name, ...cliPrediction } = fromCli
    expect(prediction).toEqual(cliPrediction)
    expect(prediction.seconds).toBeCloseTo(
      Object.values(prediction.stages).reduce((s, x) => s + x.seconds, 0),
      12,
    )

    const upload = await app.inject({
      method: 'POST',
      url: '/api/datasets?name=sim&format=hog-text&wait=true',
      headers: { ...authHeaders, 'content-type': 'text/plain' },
      payload: hogText(makeVectors(30, 7, 1)),
    })
    expect(upload.statusCode).toBe(201)
    const dataset = Dataset.parse(upload.json())
    const { n: _n, d: _d, ...rest } = body
    const byDataset = await post('/api/simulate/kmeans', { ...rest, datasetId: dataset.id })
    expect(byDataset.statusCode).toBe(200)
    expect(byDataset.json()).toEqual(prediction)

    const both = await post('/api/simulate/kmeans', { ...body, datasetId: dataset.id })
    expect(both.json()).toMatchObject({ code: 'SIM_BAD_INPUT' })
    const neither = await post('/api/simulate/kmeans', rest)
    expect(neither.json()).toMatchObject({ code: 'SIM_BAD_INPUT' })
    const unknown = await post('/api/simulate/kmeans', { ...rest, datasetId: 'nope' })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().code).toBe('DATASET_NOT_FOUND')
  })

  it('refuses what-ifs over the limits with coded 400s before simulating', async () => {
    const cases: [object, string, RegExp][] = [
      [{ topology: papers, bytes: 1e9, nodes: [151] }, 'SIM_TOO_MANY_NODES', /nodes: asked for 151 nodes/],
      [{ topology: papers, bytes: 1e13, algorithms: ['chain'] }, 'SIM_TOO_LARGE', /simulated messages/],
      [{ topology: papers, bytes: 2e13 }, 'VALIDATION_FAILED', /body\.bytes/],
      [{ topology: { ...papers, sites: [] }, bytes: 1 }, 'INVALID_TOPOLOGY', /^topology\.sites: /],
    ]
    for (const [payload, code, message] of cases) {
      const res = await post('/api/simulate/broadcast', payload)
      expect(res.statusCode, code).toBe(400)
      expect(res.json().code).toBe(code)
      expect(res.json().message).toMatch(message)
    }
    const huge: Topology = generateTopology({ racks: 239, nodesPerRack: 42, nodeGbps: 1, uplinkGbps: 10 })
    const tooMany = await post('/api/simulate/broadcast', { topology: huge, bytes: 1 })
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json()).toMatchObject({ code: 'TOPOLOGY_TOO_LARGE' })
    expect(tooMany.json().message).toContain('10038 nodes, over the limit of 10000')

    const kmeans = await post('/api/simulate/kmeans', {
      topology: papers,
      n: 1e6,
      d: 512,
      k: 1e6,
      nodes: 200,
    })
    expect(kmeans.json()).toMatchObject({ code: 'SIM_TOO_MANY_NODES' })
    const wide = generateTopology({ racks: 10, nodesPerRack: 42, nodeGbps: 1, uplinkGbps: 10 })
    const allToAll = await post('/api/simulate/kmeans', { topology: wide, n: 1e6, d: 64, k: 1000 })
    expect(allToAll.statusCode).toBe(400)
    expect(allToAll.json()).toMatchObject({ code: 'SIM_TOO_LARGE' })
    expect(allToAll.json().message).toContain('all-to-all of 176400 simultaneous flows')
    const unauthenticated = await app.inject({
      method: 'POST',
      url: '/api/simulate/broadcast',
      payload: { topology: papers, bytes: 1 },
    })
    expect(unauthenticated.statusCode).toBe(401)
  })
})
