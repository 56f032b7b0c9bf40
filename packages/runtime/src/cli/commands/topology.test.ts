import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseTopologyJson } from '../../topology/formats/topology-format.ts'
import { main } from '../main.ts'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-topology-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** Runs the CLI, collecting stdout and stderr. */
async function run(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const stdout = process.stdout.write
  const stderr = process.stderr.write
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write
  process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
  try {
    const code = await main(args)
    return { code, stdout: out.join(''), stderr: err.join('') }
  } finally {
    process.stdout.write = stdout
    process.stderr.write = stderr
  }
}

describe('codebook topology convert', () => {
  it('converts slurm → json → hadoop → slurm through files, formats from the extensions', async () => {
    const conf = join(dir, 'topology.conf')
    await writeFile(
      conf,
      'SwitchName=s0 Nodes=tux[0-3]\nSwitchName=s1 Nodes=tux[4-7]\nSwitchName=top Switches=s[0-1]\n',
    )
    const json = join(dir, 'cluster.json')
    expect((await run(['topology', 'convert', conf, json, '--nic-gbps', '10', '--slots', '8'])).code).toBe(0)
    const t = parseTopologyJson(await readFile(json, 'utf8'))
    expect(t.name).toBe('slurm')
    expect(t.sites.map((s) => s.name)).toEqual(['top'])
    expect(t.sites[0]!.racks[1]!.nodes[3]).toEqual({ name: 'tux7', host: 'tux7', slots: 8, nicGbps: 10 })

    const map = join(dir, 'racks.txt')
    expect((await run(['topology', 'convert', json, map])).code).toBe(0)
    expect((await readFile(map, 'utf8')).split('\n').slice(0, 2)).toEqual(['tux0 /top/s0', 'tux1 /top/s0'])

    const back = await run(['topology', 'convert', map, '-', '--to', 'slurm'])
    expect(back.code).toBe(0)
    expect(back.stdout).toBe(await readFile(conf, 'utf8'))
  })

  it('exits 2 with a coded, located message on malformed input or an unknown extension', async () => {
    const bad = join(dir, 'bad.txt')
    await writeFile(bad, 'h1 /r1\nh2 r2\n')
    const r = await run(['topology', 'convert', bad, '-'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`TOPOLOGY_PARSE: ${bad}:line 2:`)
    const unknown = await run(['topology', 'convert', join(dir, 'x.yaml'), '-', '--to', 'json'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('TOPOLOGY_UNKNOWN_FORMAT')
    const badFormat = await run(['topology', 'convert', bad, '-', '--to', 'xml'])
    expect(badFormat.code).toBe(2)
  })
})
