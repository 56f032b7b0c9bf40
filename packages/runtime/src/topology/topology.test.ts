import { Topology, topologyNodes } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import { chainOrder, rackCrossings } from './chain-order.ts'
import { parseSlurmTopology } from './formats/slurm.ts'
import { generateTopology } from './generate.ts'
import { rackOfHost, workerRacks } from './load-topology.ts'

describe('generateTopology', () => {
  it('builds sites × racks × nodes with unique names that the schema accepts', () => {
    const t = generateTopology({ racks: 3, nodesPerRack: 4, nodeGbps: 1, uplinkGbps: 10, sites: 2 })
    expect(Topology.safeParse(t).success).toBe(true)
    const nodes = topologyNodes(t)
    expect(nodes).toHaveLength(24)
    expect(new Set(nodes.map((n) => n.node.name)).size).toBe(24)
    expect(nodes[5]!.rack).toBe('rack-1')
    expect(nodes[12]!.site).toBe('site-1')
    expect(t.siteLinks!.bandwidthGbps).toEqual([
      [0, 10],
      [10, 0],
    ])
    expect(workerRacks(t, 6)).toEqual(['rack-0', 'rack-0', 'rack-0', 'rack-0', 'rack-1', 'rack-1'])
  })
})

describe('chainOrder', () => {
  const racks = ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b']
  it('topology order keeps racks contiguous: R − 1 crossings from any root', () => {
    for (let root = 0; root < racks.length; root++) {
      const order = chainOrder('topology', racks, root)
      expect(order[0]).toBe(root)
      expect([...order].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
      expect(rackCrossings(order, racks)).toBe(2)
    }
  })
  it('rank order wraps from the root; random order is a seeded permutation', () => {
    expect(chainOrder('rank', racks, 5)).toEqual([5, 6, 7, 0, 1, 2, 3, 4])
    expect(rackCrossings(chainOrder('rank', racks, 0), racks)).toBe(7)
    const a = chainOrder('random', racks, 2, createRng(9))
    expect(a).toEqual(chainOrder('random', racks, 2, createRng(9)))
    expect(a[0]).toBe(2)
    expect([...a].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  })
})

describe('rackOfHost', () => {
  it('places a host by its name in a Slurm topology.conf, its short name too, and no unknown host', () => {
    const t = parseSlurmTopology('SwitchName=s1 Nodes=node[1-2]\nSwitchName=s2 Nodes=node[3-4]\n')
    const rack = rackOfHost(t)
    const placed = ['node1', 'node2.cluster.example', 'node3', 'node4'].map(rack)
    expect(placed[0]).toBe(placed[1])
    expect(placed[2]).toBe(placed[3])
    expect(placed[0]).not.toBe(placed[2])
    expect(rack('node9')).toBeUndefined()
  })
})
