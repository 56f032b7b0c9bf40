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

  it('rejects more nodes than the topology has, with exit code 2', async () => {
    const { code, rows } = await simulate(['--bytes', '1000', '--nodes', '25', '--json'])
    expect(code).toBe(2)
    expect(rows).toEqual([])
  })
})
