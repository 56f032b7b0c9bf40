import { describe, expect, it } from 'vitest'
import { Topology, topologyNodes } from './topology.ts'

function valid() {
  return {
    version: 1,
    name: 'lab',
    sites: [
      {
        name: 'east',
        racks: [
          { name: 'r0', uplinkGbps: 10, nodes: [{ name: 'n0', host: 'local', slots: 2, nicGbps: 1 }] },
          { name: 'r1', uplinkGbps: 10, nodes: [{ name: 'n1', host: '10.0.0.2', slots: 2, nicGbps: 1 }] },
        ],
      },
      {
        name: 'west',
        racks: [{ name: 'r2', uplinkGbps: 10, nodes: [{ name: 'n2', host: 'local', slots: 1, nicGbps: 1 }] }],
      },
    ],
    siteLinks: {
      bandwidthGbps: [
        [0, 1],
        [2, 0],
      ],
      latencyMs: [
        [0, 30],
        [35, 0],
      ],
    },
  }
}

function messages(t: unknown): string[] {
  const r = Topology.safeParse(t)
  return r.success ? [] : r.error.issues.map((i) => i.message)
}

describe('Topology schema', () => {
  it('accepts a valid topology and lists nodes in topology order', () => {
    const t = Topology.parse(valid())
    expect(topologyNodes(t).map((n) => [n.node.name, n.rack, n.site])).toEqual([
      ['n0', 'r0', 'east'],
      ['n1', 'r1', 'east'],
      ['n2', 'r2', 'west'],
    ])
  })

  it('rejects duplicate site, rack and node names', () => {
    const t = valid()
    t.sites[1]!.name = 'east'
    t.sites[0]!.racks[1]!.name = 'r0'
    t.sites[1]!.racks[0]!.nodes[0]!.name = 'n0'
    expect(messages(t)).toEqual([
      "duplicate site name 'east'",
      "duplicate rack name 'r0'",
      "duplicate node name 'n0'",
    ])
  })

  it('rejects empty racks and sites', () => {
    const t = valid()
    t.sites[0]!.racks[0]!.nodes = []
    t.sites[1]!.racks = []
    expect(messages(t)).toEqual(["rack 'r0' has no nodes", "site 'west' has no racks"])
  })

  it('rejects non-positive bandwidths', () => {
    const t = valid()
    t.sites[0]!.racks[0]!.uplinkGbps = 0
    t.sites[0]!.racks[1]!.nodes[0]!.nicGbps = -1
    t.siteLinks.bandwidthGbps[0]![1] = 0
    expect(messages(t)).toEqual([
      'uplinkGbps must be a positive number',
      'nicGbps must be a positive number',
      'siteLinks.bandwidthGbps[0][1] must be a positive number',
    ])
  })

  it('rejects site-link matrices of the wrong shape', () => {
    const t = valid()
    t.siteLinks.latencyMs = [
      [0, 1, 2],
      [1, 0, 2],
    ]
    expect(messages(t)).toEqual(['siteLinks.latencyMs must be 2 × 2 (one row and column per site)'])
  })
})
