import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateTopology } from '../../topology/generate.ts'
import { main } from '../main.ts'

let dir: string
let topo: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-simulate-'))
  topo = join(dir, 'topo.json')
  // 3 racks × 8 nodes, 1 GbE NICs, 2 Gbit/s uplinks: thin enough that a random chain suffers.
  const t = generateTopology({ racks: 3, nodesPerRack: 8, nodeGbps: 1, uplinkGbps: 2 })
  await writeFile(topo, JSON.stringify(t))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

async function simulate(args: string[]) {
  const out: string[] = []
  const write = process.stdout.write
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write
  try {
    const code = await main(['simulate', 'broadcast', '--topology', topo, ...args])
    const lines = out
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
    return { code, rows: lines.map((l) => JSON.parse(l)) }
  } finally {
    process.stdout.write = write
  }
}

describe('codebook simulate broadcast', () => {
  it('prints one JSON line per algorithm and node count, matching the single-link cost', async () => {
    const bytes = 10_000_000
    const { code, rows } = await simulate([
      '--bytes',
      String(bytes),
      '--algorithms',
      'simple,chain,chain-random',
      '--nodes',
      '8,24',
      '--json',
    ])
    expect(code).toBe(0)
    expect(rows.map((r) => `${r.algorithm}@${r.nodes}`)).toEqual([
      'simple@8',
      'chain@8',
      'chain-random@8',
      'simple@24',
      'chain@24',
      'chain-random@24',
    ])
    const linkSeconds = (bytes * 8) / 1e9
    const at = (a: string, n: number) => rows.find((r) => r.algorithm === a && r.nodes === n)!
    // simple: the root's NIC carries the message once per receiver.
    expect(at('simple', 24).seconds / (23 * linkSeconds)).toBeCloseTo(1, 2)
    // One rack (8 nodes): a random chain stays in the rack and costs what the ordered one does.
    expect(at('chain-random', 8).seconds / at('chain', 8).seconds).toBeCloseTo(1, 1)
    // 3 racks: the ordered chain crosses 2 uplinks once each; a random chain shares them.
    expect(at('chain', 24).crossRackBytes).toBe(2 * bytes)
    expect(at('chain-random', 24).seconds).toBeGreaterThan(1.5 * at('chain', 24).seconds)
  })

  it('sweeps socket buffers: a window-bound chain moves buffer ÷ round trip, a large buffer leaves the link the bound', async () => {
    const bytes = 10_000_000
    const baseRttUs = 300
    const { code, rows } = await simulate([
      ...['--bytes', String(bytes), '--algorithms', 'chain', '--nodes', '8', '--chunk-bytes', '64K'],
      ...['--socket-buffer', '8K,1M', '--base-rtt-us', String(baseRttUs), '--json'],
    ])
    expect(code).toBe(0)
    expect(rows.map((r) => r.socketBuffer)).toEqual([8192, 1048576])
    // Round trip: twice the default 25 µs NIC latency plus the base. 8 KiB per 350 µs ≈ 23 MB/s,
    // far under 1 GbE: the pipeline's k + p − 2 chunk times at that rate (p = 8 nodes).
    const rtt = 2 * 25e-6 + baseRttUs * 1e-6
    const chunks = bytes / 65536
    const windowSeconds = ((chunks + 8 - 2) * 65536 * rtt) / 8192
    expect(Math.abs(rows[0].seconds - windowSeconds) / windowSeconds).toBeLessThan(0.05)
    // 1 MiB per 350 µs is 3 GB/s: the NIC is the bound again.
    const linkSeconds = (bytes * 8) / 1e9
    expect(Math.abs(rows[1].seconds - linkSeconds) / linkSeconds).toBeLessThan(0.05)
  })

  it('rejects more nodes than the topology has, with exit code 2', async () => {
    const { code, rows } = await simulate(['--bytes', '1000', '--nodes', '25', '--json'])
    expect(code).toBe(2)
    expect(rows).toEqual([])
  })
})

describe('codebook simulate kmeans', () => {
  async function kmeans(args: string[]) {
    const out: string[] = []
    const write = process.stdout.write
    process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write
    try {
      const code = await main(['simulate', 'kmeans', '--topology', topo, ...args])
      return { code, text: out.join('') }
    } finally {
      process.stdout.write = write
    }
  }
  const size = ['--n', '240000', '--d', '127', '--k', '2400']

  it('prints one JSON object with the inputs, every stage and the total', async () => {
    const { code, text } = await kmeans([
      ...size,
      '--nodes',
      '8',
      '--slots',
      '4',
      '--map-gflops',
      '10',
      '--json',
    ])
    expect(code).toBe(0)
    const r = JSON.parse(text)
    expect(Object.keys(r)).toEqual([
      'topology',
      'nodes',
      'n',
      'd',
      'k',
      'slots',
      'broadcast',
      'aggregation',
      'mapGflopsPerSlot',
      'stages',
      'seconds',
    ])
    expect(r).toMatchObject({
      nodes: 8,
      n: 240000,
      d: 127,
      k: 2400,
      broadcast: 'chain',
      aggregation: 'three-stage',
    })
    expect(r.slots).toEqual(Array(8).fill(4))
    expect(Object.keys(r.stages)).toEqual(['broadcast', 'map', 'regroup', 'combine'])
    for (const s of Object.values(r.stages))
      expect(Object.keys(s as object).sort()).toEqual(['bytes', 'crossRackBytes', 'messages', 'seconds'])
    // map: (n/p)·k·d·2 flops over 4 slots × 10 GFLOP/s.
    expect(r.stages.map.seconds).toBeCloseTo(((240000 / 8) * 2400 * 127 * 2) / (4 * 10e9), 9)
    // three-stage regroup: 8 × 7 blocks of 300 centroids × 128 float64.
    expect(r.stages.regroup.bytes).toBe(8 * 7 * 300 * 128 * 8)
    const sum =
      r.stages.broadcast.seconds + r.stages.map.seconds + r.stages.regroup.seconds + r.stages.combine.seconds
    expect(r.seconds).toBeCloseTo(sum, 9)
  })

  it('prints a per-stage table, and rejects an unknown aggregation with exit code 2', async () => {
    const { code, text } = await kmeans([...size, '--aggregation', 'allreduce'])
    expect(code).toBe(0)
    expect(text.split('\n').map((l) => l.split(/\s+/)[0])).toEqual([
      'topology',
      'stage',
      'broadcast',
      'map',
      'regroup',
      'combine',
      'total',
      '',
    ])
    expect((await kmeans([...size, '--aggregation', 'tree'])).code).toBe(2)
  })
})
