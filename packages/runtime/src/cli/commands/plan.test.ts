import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeCommMatrixNpy } from '../../mapping/comm-matrix-npy.ts'
import { luPattern } from '../../mapping/patterns.ts'
import { pairTopology } from '../../mapping/test-support/pair-topology.ts'
import { runCli } from '../test-support/run-cli.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-plan-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const plan = (args: string[]) => runCli(['plan', 'mapping', ...args])

describe('codebook plan mapping', () => {
  it('prints one JSON line per planner and the Monte Carlo line', async () => {
    const { code, lines } = await plan([
      '--profile',
      'ec2-4',
      '--processes',
      '16',
      '--pattern',
      'bt',
      '--constraint-ratio',
      '0.2',
      '--seed',
      '3',
      '--monte-carlo',
      '500',
      '--json',
    ])
    expect(code).toBe(0)
    const rows = lines.map((l) => JSON.parse(l))
    expect(rows.map((r) => r.algorithm)).toEqual([
      'geo',
      'geo-refined',
      'greedy',
      'mpipp',
      'random',
      'monte-carlo',
    ])
    for (const r of rows.slice(0, 5)) {
      expect(Object.keys(r)).toEqual(['algorithm', 'pattern', 'processes', 'cost', 'planMs'])
      expect(r).toMatchObject({ pattern: 'bt', processes: 16 })
      expect(r.cost).toBeGreaterThan(0)
    }
    expect(rows[1].cost).toBeLessThanOrEqual(rows[0].cost) // geo-refined starts from geo's fills
    const mc = rows[5]
    expect(Object.keys(mc)).toEqual(['algorithm', 'samples', 'best', 'fractionBetterThanGeo'])
    expect(mc.samples).toBe(500)
    expect(mc.fractionBetterThanGeo).toBeGreaterThanOrEqual(0)
    expect(mc.fractionBetterThanGeo).toBeLessThanOrEqual(1)
  })

  it('plans a .npy matrix and writes the plan (rank → site and node) as JSON', async () => {
    const file = join(dir, 'lu.npy')
    await writeCommMatrixNpy(file, luPattern(12))
    const out = join(dir, 'plan.json')
    const { code, lines } = await plan([
      '--pattern',
      file,
      '--planners',
      'geo,random',
      '--out',
      out,
      '--json',
    ])
    expect(code).toBe(0)
    expect(lines.map((l) => JSON.parse(l).processes)).toEqual([12, 12])
    const saved = JSON.parse(await readFile(out, 'utf8'))
    expect(saved.sites).toEqual(['us-east', 'us-west', 'singapore', 'ireland'])
    expect(saved.plans[0].nodeOf.slice().sort((a: number, b: number) => a - b)).toEqual([...Array(12).keys()])
  })

  it('reads a profile JSON and exits 2 with a code on bad input', async () => {
    const profile = join(dir, 'two.json')
    await writeFile(
      profile,
      JSON.stringify({
        name: 'two',
        sites: ['a', 'b'],
        latency: [
          [1e-4, 0.05],
          [0.05, 1e-4],
        ],
        bandwidth: [
          [1e9, 1e7],
          [1e7, 1e9],
        ],
        coordinates: [[0], [1]],
      }),
    )
    expect((await plan(['--profile', profile, '--processes', '8', '--pattern', 'dnn', '--json'])).code).toBe(
      0,
    )
    const bad = await plan(['--profile', 'ec2-9', '--processes', '8', '--pattern', 'bt'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('PROFILE_UNKNOWN')
    const noN = await plan(['--pattern', 'lu'])
    expect(noN.code).toBe(2)
    expect(noN.stderr).toContain('--processes')
    const tooMany = await plan(['--processes', '8', '--pattern', 'lu', '--nodes-per-site', '1'])
    expect(tooMany.stderr).toContain('MAPPING_CAPACITY')
  })
  it('plans on the built-in azure-3 profile (Table 3’s three regions), the processes spread evenly', async () => {
    const out = join(dir, 'azure.json')
    const { code } = await plan([
      '--profile',
      'azure-3',
      '--processes',
      '64',
      '--pattern',
      'lu',
      '--planners',
      'geo,random',
      '--constraint-ratio',
      '0.2',
      '--out',
      out,
      '--json',
    ])
    expect(code).toBe(0)
    const saved = JSON.parse(await readFile(out, 'utf8'))
    expect(saved.sites).toEqual(['east-us', 'west-europe', 'japan-east'])
    expect(saved.capacity).toEqual([22, 21, 21])
    expect(saved.constraints.filter((s: number) => s >= 0)).toHaveLength(13) // round(0.2 × 64)
  })

  it('--topology plans onto the topology’s own sites and nodes; without site links it exits 2, coded', async () => {
    const topology = pairTopology()
    const file = join(dir, 'pair.json')
    await writeFile(file, JSON.stringify(topology))
    const out = join(dir, 'pair-plan.json')
    const ok = await plan(['--topology', file, '--processes', '4', '--pattern', 'lu', '--out', out, '--json'])
    expect(ok.code).toBe(0)
    const written = JSON.parse(await readFile(out, 'utf8'))
    expect(written.sites).toEqual(['lab-a', 'lab-b'])
    expect(written.capacity).toEqual([3, 1])
    const { siteLinks: _, ...unlinked } = topology
    await writeFile(file, JSON.stringify(unlinked))
    const bad = await plan(['--topology', file, '--processes', '4', '--pattern', 'lu'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('TOPOLOGY_NO_SITE_LINKS')
  })
})
