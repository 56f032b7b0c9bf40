import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Topology, topologyNodes } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { generateTopology } from '../generate.ts'
import { readTopology } from '../load-topology.ts'
import { validateTopology } from '../validate-topology.ts'
import { formatHadoopRackMap, parseHadoopRackMap } from './hadoop.ts'
import { expandHostlist } from './hostlist.ts'
import { formatSlurmTopology, parseSlurmTopology } from './slurm.ts'
import {
  formatTopology,
  parseTopology,
  parseTopologyJson,
  topologyFormatFromPath,
} from './topology-format.ts'

/** Site → rack → node names, the part every format can express. */
function shape(t: Topology) {
  return t.sites.map((s) => ({
    site: s.name,
    racks: s.racks.map((r) => ({ rack: r.name, nodes: r.nodes.map((n) => n.name) })),
  }))
}

/** Racks → nodes only (what a Slurm file keeps when sites are not written). */
function racks(t: Topology) {
  return t.sites.flatMap((s) => s.racks.map((r) => ({ rack: r.name, nodes: r.nodes.map((n) => n.name) })))
}

/** A Slurm file as a set of switch → expanded children, so ordering and compression don't matter. */
function slurmMeaning(text: string) {
  return text
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((l) => {
      const kv = Object.fromEntries(l.split(/\s+/).map((t) => t.split('=') as [string, string]))
      const kind = kv.Nodes ? 'Nodes' : 'Switches'
      return `${kv.SwitchName} ${kind} ${expandHostlist(kv[kind]!).join(' ')}`
    })
    .sort()
}

const threeSites = generateTopology({ sites: 3, racks: 2, nodesPerRack: 3, nodeGbps: 1, uplinkGbps: 10 })

describe('Hadoop rack mapping', () => {
  it('reads /dc/rack and /rack lines, comments and blank lines, in order of appearance', () => {
    const t = parseHadoopRackMap(
      [
        '# rack map',
        'h1 /dc1/r1',
        '',
        'h2   /dc1/r2   # trailing comment',
        'h3 /dc2/r3',
        'h4 /dc1/r1',
        'h5 /lonely',
      ].join('\n'),
      { nicGbps: 10, uplinkGbps: 40, slots: 4 },
    )
    expect(shape(t)).toEqual([
      {
        site: 'dc1',
        racks: [
          { rack: 'r1', nodes: ['h1', 'h4'] },
          { rack: 'r2', nodes: ['h2'] },
        ],
      },
      { site: 'dc2', racks: [{ rack: 'r3', nodes: ['h3'] }] },
      { site: 'default', racks: [{ rack: 'lonely', nodes: ['h5'] }] },
    ])
    expect(t.sites[0]!.racks[0]!.uplinkGbps).toBe(40)
    expect(t.sites[0]!.racks[0]!.nodes[1]).toEqual({ name: 'h4', host: 'h4', slots: 4, nicGbps: 10 })
  })

  it('keeps racks of the same name in two sites apart as dc/rack, and writes them back', () => {
    const text = 'a /x/r\nb /y/r\n'
    const t = parseHadoopRackMap(text)
    expect(racks(t).map((r) => r.rack)).toEqual(['x/r', 'y/r'])
    expect(formatHadoopRackMap(t)).toBe(text)
  })

  it('round-trips json → hadoop → json keeping sites, racks, node names and order', () => {
    const back = parseHadoopRackMap(formatHadoopRackMap(threeSites))
    expect(shape(back)).toEqual(shape(threeSites))
    expect(formatHadoopRackMap(threeSites).split('\n')[0]).toBe('node-0 /site-0/rack-0')
  })

  it('reports malformed lines with their line number', () => {
    const cases: [string, string, number][] = [
      ['h1 /a/b\nh2\n', 'TOPOLOGY_PARSE', 2],
      ['h1 a/b\n', 'TOPOLOGY_PARSE', 1],
      ['h1 /a/b/c\n', 'TOPOLOGY_PARSE', 1],
      ['# x\nh1 /a/b\nh1 /a/c\n', 'TOPOLOGY_DUPLICATE_NAME', 3],
    ]
    for (const [text, code, line] of cases)
      expect(() => parseHadoopRackMap(text, { file: 'map.txt' }), text).toThrow(
        expect.objectContaining({ code, line, message: expect.stringContaining(`map.txt:line ${line}:`) }),
      )
    expect(() => parseHadoopRackMap('# only comments\n')).toThrow(
      expect.objectContaining({ code: 'TOPOLOGY_NO_SITES' }),
    )
    expect(() => parseHadoopRackMap('h /r\n', { nicGbps: 0 })).toThrow(
      expect.objectContaining({ code: 'TOPOLOGY_BAD_BANDWIDTH' }),
    )
  })
})

describe('Slurm topology.conf', () => {
  const conf = [
    '# two-level tree',
    'SwitchName=s0 Nodes=tux[0-3] LinkSpeed=900',
    'SwitchName=s1 Nodes=tux[4-5],tux7',
    'switchname=s2 nodes=n[008-010]',
    'SwitchName=spine Switches=s[0-1]',
    'SwitchName=top Switches=spine,s2',
  ].join('\n')

  it('turns leaf switches into racks and each top-level switch tree into a site', () => {
    const t = parseSlurmTopology(conf, { uplinkGbps: 25 })
    expect(shape(t)).toEqual([
      {
        site: 'top',
        racks: [
          { rack: 's0', nodes: ['tux0', 'tux1', 'tux2', 'tux3'] },
          { rack: 's1', nodes: ['tux4', 'tux5', 'tux7'] },
          { rack: 's2', nodes: ['n008', 'n009', 'n010'] },
        ],
      },
    ])
    expect(t.sites[0]!.racks[2]!.uplinkGbps).toBe(25)
  })

  it('puts leaf switches under no upper switch in site default, and several trees in several sites', () => {
    const t = parseSlurmTopology(
      'SwitchName=a Nodes=x[1-2]\nSwitchName=b Nodes=y1\nSwitchName=c Nodes=z1\nSwitchName=up Switches=c\n',
    )
    expect(shape(t).map((s) => [s.site, s.racks.map((r) => r.rack)])).toEqual([
      ['default', ['a', 'b']],
      ['up', ['c']],
    ])
  })

  it('round-trips json → slurm → json keeping racks and nodes, sites included', () => {
    const back = parseSlurmTopology(formatSlurmTopology(threeSites))
    expect(racks(back)).toEqual(racks(threeSites))
    expect(shape(back)).toEqual(shape(threeSites))
    expect(formatSlurmTopology(threeSites).split('\n')[0]).toBe('SwitchName=rack-0 Nodes=node-[0-2]')
  })

  it('round-trips slurm → json → slurm to an equivalent file', () => {
    const flat = [
      'SwitchName=s0 Nodes=tux[0-3]',
      'SwitchName=s1 Nodes=tux[4-5,7]',
      'SwitchName=s2 Nodes=n[008-010]',
      'SwitchName=top Switches=s[0-2]',
    ].join('\n')
    const out = formatSlurmTopology(parseSlurmTopology(flat))
    expect(slurmMeaning(out)).toEqual(slurmMeaning(flat))
    expect(out).toBe(`${flat}\n`)
    const leavesOnly = 'SwitchName=a Nodes=x[1-2]\nSwitchName=b Nodes=y1\n'
    expect(formatSlurmTopology(parseSlurmTopology(leavesOnly))).toBe(leavesOnly)
  })

  it('reports malformed files with their line number', () => {
    const cases: [string, string, number][] = [
      ['SwitchName=a Nodes=x1\nNodes=x2\n', 'TOPOLOGY_PARSE', 2],
      ['SwitchName=a Nodes=x[1-\n', 'TOPOLOGY_BAD_HOSTLIST', 1],
      ['SwitchName=a Nodes=x1\n\nSwitchName=a Nodes=x2\n', 'TOPOLOGY_DUPLICATE_NAME', 3],
      ['SwitchName=a Nodes=x1\nSwitchName=b Nodes=x1\n', 'TOPOLOGY_DUPLICATE_NAME', 2],
      ['SwitchName=a Nodes=x1\nSwitchName=up Switches=a,b\n', 'TOPOLOGY_PARSE', 2],
      ['SwitchName=a Nodes=x1 Switches=b\n', 'TOPOLOGY_PARSE', 1],
      ['SwitchName=a\n', 'TOPOLOGY_PARSE', 1],
      ['BlockName=b1 Nodes=x1\n', 'TOPOLOGY_PARSE', 1],
      ['SwitchName=a Nodes=x1\nSwitchName=u Switches=a,v\nSwitchName=v Switches=u\n', 'TOPOLOGY_PARSE', 2],
    ]
    for (const [text, code, line] of cases)
      expect(() => parseSlurmTopology(text, { file: 'topology.conf' }), text).toThrow(
        expect.objectContaining({
          code,
          line,
          message: expect.stringContaining(`topology.conf:line ${line}:`),
        }),
      )
  })
})

describe('JSON and format dispatch', () => {
  it('round-trips through every format pair, keeping what the target can express', () => {
    for (const via of ['json', 'hadoop', 'slurm'] as const)
      expect(shape(parseTopology(formatTopology(threeSites, via), via))).toEqual(shape(threeSites))
    expect(parseTopologyJson(formatTopology(threeSites, 'json'))).toEqual(threeSites)
  })

  it('reports JSON syntax errors with the line', () => {
    expect(() => parseTopologyJson('{\n"version": 1,\n}', 't.json')).toThrow(
      expect.objectContaining({ code: 'TOPOLOGY_PARSE', line: 3, file: 't.json' }),
    )
  })

  it('tells the format from the extension', () => {
    expect(topologyFormatFromPath('a/b.JSON')).toBe('json')
    expect(topologyFormatFromPath('topology.conf')).toBe('slurm')
    expect(topologyFormatFromPath('racks.txt')).toBe('hadoop')
    expect(() => topologyFormatFromPath('x.yaml')).toThrow(
      expect.objectContaining({ code: 'TOPOLOGY_UNKNOWN_FORMAT' }),
    )
  })
})

describe('validateTopology', () => {
  const base = () => JSON.parse(JSON.stringify(threeSites))
  const cases: [string, (t: ReturnType<typeof base>) => void, string, string][] = [
    [
      'duplicate node',
      (t) => (t.sites[1].racks[0].nodes[0].name = 'node-0'),
      'TOPOLOGY_DUPLICATE_NAME',
      'sites.1.racks.0.nodes.0.name',
    ],
    [
      'duplicate rack',
      (t) => (t.sites[0].racks[1].name = 'rack-0'),
      'TOPOLOGY_DUPLICATE_NAME',
      'sites.0.racks.1.name',
    ],
    ['empty rack', (t) => (t.sites[2].racks[1].nodes = []), 'TOPOLOGY_EMPTY_RACK', 'sites.2.racks.1.nodes'],
    ['empty site', (t) => (t.sites[0].racks = []), 'TOPOLOGY_EMPTY_SITE', 'sites.0.racks'],
    ['no sites', (t) => (t.sites = []), 'TOPOLOGY_NO_SITES', 'sites'],
    [
      'zero NIC',
      (t) => (t.sites[0].racks[0].nodes[2].nicGbps = 0),
      'TOPOLOGY_BAD_BANDWIDTH',
      'sites.0.racks.0.nodes.2.nicGbps',
    ],
    [
      'negative uplink',
      (t) => (t.sites[0].racks[0].uplinkGbps = -1),
      'TOPOLOGY_BAD_BANDWIDTH',
      'sites.0.racks.0.uplinkGbps',
    ],
    [
      'zero site link',
      (t) => (t.siteLinks.bandwidthGbps[0][2] = 0),
      'TOPOLOGY_BAD_BANDWIDTH',
      'siteLinks.bandwidthGbps.0.2',
    ],
    ['2 × 3 matrix', (t) => t.siteLinks.latencyMs.pop(), 'TOPOLOGY_BAD_MATRIX', 'siteLinks.latencyMs'],
    [
      'negative latency',
      (t) => (t.siteLinks.latencyMs[1][0] = -5),
      'TOPOLOGY_BAD_LATENCY',
      'siteLinks.latencyMs.1.0',
    ],
    ['wrong version', (t) => (t.version = 2), 'TOPOLOGY_BAD_VERSION', 'version'],
    [
      'missing slots',
      (t) => delete t.sites[0].racks[0].nodes[0].slots,
      'TOPOLOGY_INVALID',
      'sites.0.racks.0.nodes.0.slots',
    ],
  ]
  for (const [what, mutate, code, path] of cases)
    it(`maps ${what} to ${code} at ${path}`, () => {
      const t = base()
      mutate(t)
      expect(() => validateTopology(t, 'x.json')).toThrow(
        expect.objectContaining({ code, path, message: expect.stringContaining(`x.json: ${path}:`) }),
      )
    })

  it('returns the parsed topology when valid', () => {
    expect(topologyNodes(validateTopology(base()))).toHaveLength(18)
  })
})

describe('readTopology', () => {
  it('reads JSON by default and the other formats by extension, with coded errors', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'codebook-read-topology-'))
    try {
      const conf = join(dir, 'topology.conf')
      await writeFile(conf, formatSlurmTopology(threeSites))
      expect(shape(await readTopology(conf))).toEqual(shape(threeSites))
      const plain = join(dir, 'cluster')
      await writeFile(plain, formatTopology(threeSites, 'json'))
      expect(await readTopology(plain)).toEqual(threeSites)
      const dup = join(dir, 'dup.json')
      const bad = JSON.parse(formatTopology(threeSites, 'json'))
      bad.sites[0].racks[0].nodes[1].name = 'node-0'
      await writeFile(dup, JSON.stringify(bad))
      await expect(readTopology(dup)).rejects.toMatchObject({
        code: 'TOPOLOGY_DUPLICATE_NAME',
        path: 'sites.0.racks.0.nodes.1.name',
      })
      await expect(readTopology(join(dir, 'missing.json'))).rejects.toMatchObject({
        code: 'TOPOLOGY_UNREADABLE',
      })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
