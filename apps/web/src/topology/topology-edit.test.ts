import { Topology, topologyNodes } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import {
  addNode,
  addRack,
  addSite,
  findNode,
  freshName,
  generateTopology,
  moveNodeToRack,
  removeNode,
  removeRack,
  removeSite,
  setSiteLink,
  topologyCounts,
  updateNode,
  updateRack,
  validateTopology,
} from './topology-edit.ts'

const base = () => generateTopology({ name: 't', racks: 3, nodesPerRack: 4, nodeGbps: 1, uplinkGbps: 10 })

/** Rack name of every node, by node name: an independent view of where each node sits. */
function placement(t: Topology): Record<string, string> {
  return Object.fromEntries(topologyNodes(t).map((p) => [p.node.name, p.rack]))
}

describe('generateTopology', () => {
  it('builds racks × nodes with unique names that pass the shared schema', () => {
    const t = base()
    expect(Topology.safeParse(t).success).toBe(true)
    expect(topologyCounts(t)).toEqual({ sites: 1, racks: 3, nodes: 12, slots: 12 })
    expect(new Set(topologyNodes(t).map((p) => p.node.name)).size).toBe(12)
    expect(t.sites[0]!.racks[2]!.nodes[0]).toEqual({ name: 'node-9', host: 'local', slots: 1, nicGbps: 1 })
  })
})

describe('moveNodeToRack', () => {
  it('moves exactly one node and leaves every other placement alone', () => {
    const t = base()
    const before = placement(t)
    const moved = moveNodeToRack(t, 'node-2', 'rack-3')
    const after = placement(moved)
    expect(after['node-2']).toBe('rack-3')
    for (const name of Object.keys(before)) if (name !== 'node-2') expect(after[name]).toBe(before[name])
    expect(moved.sites[0]!.racks[2]!.nodes.at(-1)!.name).toBe('node-2')
    expect(topologyCounts(moved).nodes).toBe(12)
    expect(validateTopology(moved)).toEqual([])
  })

  it('does not mutate its input and returns the same object for no-ops', () => {
    const t = base()
    const snapshot = structuredClone(t)
    moveNodeToRack(t, 'node-1', 'rack-2')
    expect(t).toEqual(snapshot)
    expect(moveNodeToRack(t, 'node-1', 'rack-1')).toBe(t)
    expect(moveNodeToRack(t, 'nope', 'rack-2')).toBe(t)
    expect(moveNodeToRack(t, 'node-1', 'nope')).toBe(t)
  })

  it('inserts at a given index within the target rack', () => {
    const moved = moveNodeToRack(base(), 'node-12', 'rack-1', 1)
    expect(moved.sites[0]!.racks[0]!.nodes.map((n) => n.name)).toEqual([
      'node-1',
      'node-12',
      'node-2',
      'node-3',
      'node-4',
    ])
  })

  it('emptying a rack makes validation name it', () => {
    let t = base()
    for (const n of ['node-1', 'node-2', 'node-3', 'node-4']) t = moveNodeToRack(t, n, 'rack-2')
    expect(validateTopology(t)).toEqual([
      { where: "site 'site-1' › rack 'rack-1' › nodes", message: "rack 'rack-1' has no nodes" },
    ])
  })
})

describe('add / remove / update', () => {
  it('adds racks and nodes with fresh names and removes them again', () => {
    let t = addRack(base())
    expect(t.sites[0]!.racks.map((r) => r.name)).toEqual(['rack-1', 'rack-2', 'rack-3', 'rack-4'])
    expect(t.sites[0]!.racks[3]!.nodes.map((n) => n.name)).toEqual(['node-13'])
    t = addNode(t, 'rack-1')
    expect(findNode(t, 'node-14')).toEqual({ site: 0, rack: 0, node: 4 })
    expect(validateTopology(t)).toEqual([])
    t = removeRack(removeNode(t, 'node-14'), 'rack-4')
    expect(t).toEqual(base())
  })

  it('reports bad link speeds and duplicate names from the shared schema', () => {
    let t = updateNode(base(), 'node-3', { nicGbps: 0 })
    t = updateRack(t, 'rack-2', { name: 'rack-1' })
    const problems = validateTopology(t)
    expect(problems).toContainEqual({
      where: "site 'site-1' › rack 'rack-1' › node 'node-3' › nicGbps",
      message: 'nicGbps must be a positive number',
    })
    expect(problems.map((p) => p.message)).toContain("duplicate rack name 'rack-1'")
  })

  it('freshName skips taken names', () => {
    expect(freshName('rack', ['rack-1', 'rack-3'])).toBe('rack-2')
  })
})

describe('sites', () => {
  it('grows and shrinks the site-link matrices with the sites', () => {
    let t = addSite(addSite(base()))
    expect(t.sites.map((s) => s.name)).toEqual(['site-1', 'site-2', 'site-3'])
    expect(t.siteLinks?.bandwidthGbps).toEqual([
      [0, 1, 1],
      [1, 0, 1],
      [1, 1, 0],
    ])
    expect(validateTopology(t)).toEqual([])
    t = setSiteLink(t, 'bandwidthGbps', 0, 2, 40)
    t = setSiteLink(t, 'latencyMs', 2, 0, 7)
    t = removeSite(t, 1)
    expect(t.siteLinks).toEqual({
      bandwidthGbps: [
        [0, 40],
        [1, 0],
      ],
      latencyMs: [
        [0, 50],
        [7, 0],
      ],
    })
    expect(validateTopology(setSiteLink(t, 'bandwidthGbps', 1, 0, -1))).toEqual([
      {
        where: 'siteLinks › bandwidthGbps › 1 › 0',
        message: 'siteLinks.bandwidthGbps[1][0] must be a positive number',
      },
    ])
    expect(removeSite(t, 1).siteLinks).toBeUndefined()
  })
})
