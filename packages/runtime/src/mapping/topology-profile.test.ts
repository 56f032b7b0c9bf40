import { planNodeNames, type Topology, topologyNodes } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import type { CodebookError } from '../errors.ts'
import { planMapping } from './plan-mapping.ts'
import { sphereCoordinates } from './site-profile.ts'
import { pairTopology } from './test-support/pair-topology.ts'
import { siteProfileOfTopology } from './topology-profile.ts'

const node = (name: string, nicGbps: number) => ({ name, host: 'local', slots: 1, nicGbps })

/** Two sites: `east` (two racks, 3 nodes, one 1 Gbit/s NIC) and `west` (one rack, 2 nodes). */
function twoSites(): Topology {
  return {
    version: 1,
    name: 'two-sites',
    sites: [
      {
        name: 'east',
        latitude: 40,
        longitude: -75,
        racks: [
          { name: 'e0', uplinkGbps: 40, latencyUs: 10, nodes: [node('e0n0', 10), node('e0n1', 1)] },
          { name: 'e1', uplinkGbps: 40, latencyUs: 40, nodes: [node('e1n0', 10)] },
        ],
      },
      {
        name: 'west',
        latitude: 37,
        longitude: -122,
        racks: [{ name: 'w0', uplinkGbps: 40, nodes: [node('w0n0', 25), node('w0n1', 25)] }],
      },
    ],
    siteLinks: {
      latencyMs: [
        [0, 35],
        [40, 0],
      ],
      bandwidthGbps: [
        [0, 2],
        [4, 0],
      ],
    },
  } as Topology
}

describe('siteProfileOfTopology: the α-β profile of a topology’s own sites', () => {
  it('prices site pairs from the site links and a site from its NIC hops and slowest NIC', () => {
    const p = siteProfileOfTopology(twoSites())
    expect(p.sites).toEqual(['east', 'west'])
    expect(p.nodes).toEqual([3, 2])
    // east: hops of 10, 10, 40 µs → mean 20 µs, two hops = 40 µs; west: the 25 µs default twice.
    expect(p.latency[0]![0]).toBeCloseTo(40e-6, 12)
    expect(p.latency[1]![1]).toBeCloseTo(50e-6, 12)
    expect(p.latency[0]![1]).toBeCloseTo(0.035, 12)
    expect(p.latency[1]![0]).toBeCloseTo(0.04, 12)
    // Bytes per second: the slowest NIC of east is 1 Gbit/s; the links are asymmetric.
    expect(p.bandwidth[0]![0]).toBe(1e9 / 8)
    expect(p.bandwidth[1]![1]).toBe(25e9 / 8)
    expect(p.bandwidth[0]![1]).toBe(2e9 / 8)
    expect(p.bandwidth[1]![0]).toBe(4e9 / 8)
    expect(p.coordinates).toEqual([sphereCoordinates(40, -75), sphereCoordinates(37, -122)])
  })

  it('places sites by their latency rows when a site has no coordinates', () => {
    const t = twoSites()
    delete t.sites[1]!.latitude
    const p = siteProfileOfTopology(t)
    const expected = [
      [0.04, 35],
      [40, 0.05],
    ]
    for (const [s, row] of expected.entries())
      for (const [t, ms] of row.entries()) expect(p.coordinates[s]![t]).toBeCloseTo(ms, 12)
  })

  it('refuses a topology of several sites without site links, coded', () => {
    const t = twoSites()
    delete t.siteLinks
    expect(() => siteProfileOfTopology(t)).toThrow(
      expect.objectContaining({ code: 'TOPOLOGY_NO_SITE_LINKS' }) as CodebookError,
    )
  })

  it('plans onto the topology’s nodes, and the plan names them back onto the same topology', () => {
    const t = twoSites()
    const result = planMapping({
      profile: siteProfileOfTopology(t),
      pattern: 'lu',
      processes: 5,
      planners: ['geo', 'random'],
    })
    expect(result.capacity).toEqual([3, 2])
    const nodes = topologyNodes(t)
    for (const plan of result.plans) {
      const named = planNodeNames(result, t, 5, plan.algorithm)
      if (!named.ok) throw new Error(named.message)
      // Every rank on its own node, and each node in the site the plan chose for that rank.
      expect(new Set(named.names).size).toBe(5)
      named.names.forEach((name, rank) => {
        expect(nodes.find((n) => n.node.name === name)!.site).toBe(result.sites[plan.siteOf[rank]!])
      })
    }
    expect(() => planMapping({ profile: siteProfileOfTopology(t), pattern: 'lu', processes: 6 })).toThrow(
      /only 5 nodes/,
    )
  })
  it('MPIPP ends on its own on uneven site capacities (rounding-noise gains once kept it passing until its time bound)', () => {
    const t = pairTopology()
    const result = planMapping({
      profile: siteProfileOfTopology(t),
      pattern: 'lu',
      processes: 4,
      planners: ['mpipp'],
      mpipp: { maxMs: 10_000 },
    })
    expect(result.capacity).toEqual([3, 1])
    expect(result.plans[0]!.truncated).toBeFalsy()
  })
})
