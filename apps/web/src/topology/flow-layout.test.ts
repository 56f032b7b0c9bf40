import { topologyNodes } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import {
  dropTarget,
  type FlowCache,
  type FlowNode,
  MACHINE_H,
  MACHINE_W,
  machineId,
  type Rect,
  rackAt,
  rackId,
  topologyToFlow,
} from './flow-layout.ts'
import { addSite, generateTopology, moveNodeToRack, updateNode } from './topology-edit.ts'

const big = () => generateTopology({ name: 'big', racks: 5, nodesPerRack: 30, nodeGbps: 1, uplinkGbps: 10 })

/** Absolute box of every machine, computed from parent + relative position. */
function machineBoxes(nodes: FlowNode[], racks: Map<string, Rect>): Map<string, Rect & { rack: string }> {
  const out = new Map<string, Rect & { rack: string }>()
  for (const n of nodes) {
    if (n.type !== 'machine') continue
    const parent = racks.get(n.data.rack)!
    out.set(n.data.node.name, {
      x: parent.x + n.position.x,
      y: parent.y + n.position.y,
      width: MACHINE_W,
      height: MACHINE_H,
      rack: n.data.rack,
    })
  }
  return out
}

const overlap = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

const inside = (a: Rect, b: Rect) =>
  a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height

describe('topologyToFlow', () => {
  it('gives every node one machine inside its own rack, with no two boxes overlapping', () => {
    const t = addSite(big())
    const { nodes, racks } = topologyToFlow(t)
    const boxes = machineBoxes(nodes, racks)
    const placed = topologyNodes(t)
    expect(boxes.size).toBe(placed.length)
    for (const p of placed) {
      const box = boxes.get(p.node.name)!
      expect(box.rack).toBe(p.rack)
      expect(inside(box, racks.get(p.rack)!)).toBe(true)
    }
    // Brute force: all pairs of machines, all pairs of racks.
    const all = [...boxes.values()]
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) expect(overlap(all[i]!, all[j]!)).toBe(false)
    const rs = [...racks.values()]
    for (let i = 0; i < rs.length; i++)
      for (let j = i + 1; j < rs.length; j++) expect(overlap(rs[i]!, rs[j]!)).toBe(false)
  })

  it('lists each rack before its machines (React Flow needs parents first)', () => {
    const { nodes } = topologyToFlow(big())
    const seen = new Set<string>()
    for (const n of nodes) {
      if (n.type === 'machine') expect(seen.has(n.parentId)).toBe(true)
      seen.add(n.id)
    }
  })

  it('marks the selected node', () => {
    const { nodes } = topologyToFlow(big(), machineId('node-7'))
    expect(nodes.filter((n) => n.selected).map((n) => n.id)).toEqual(['node:node-7'])
  })

  it('with a cache, keeps unchanged machines as the same objects', () => {
    const cache: FlowCache = new Map()
    const t = big()
    const first = topologyToFlow(t, null, cache)
    const edited = updateNode(t, 'node-100', { nicGbps: 10 })
    const second = topologyToFlow(edited, null, cache)
    const byId = new Map(first.nodes.map((n) => [n.id, n]))
    const changed = second.nodes.filter((n) => byId.get(n.id) !== n).map((n) => n.id)
    // The edited machine and its rack (its `rack` data object is new) — nothing else.
    expect(changed.sort()).toEqual([machineId('node-100'), rackId('rack-4')].sort())
  })
})

describe('dropping a machine', () => {
  it('finds the rack under every machine centre, and none between racks', () => {
    const { nodes, racks } = topologyToFlow(big())
    for (const [name, box] of machineBoxes(nodes, racks))
      expect(rackAt(racks, { x: box.x + box.width / 2, y: box.y + box.height / 2 }), name).toBe(box.rack)
    const r1 = racks.get('rack-1')!
    expect(rackAt(racks, { x: r1.x + r1.width + 5, y: r1.y + 10 })).toBeNull()
    expect(rackAt(racks, { x: -50, y: -50 })).toBeNull()
  })

  it('turns a drag (relative position in the old rack) into a move to the rack under the centre', () => {
    const t = big()
    const { racks } = topologyToFlow(t)
    const from = racks.get('rack-1')!
    const to = racks.get('rack-3')!
    // Drop node-1 so its centre lands in the middle of rack-3.
    const relative = {
      x: to.x + to.width / 2 - MACHINE_W / 2 - from.x,
      y: to.y + to.height / 2 - MACHINE_H / 2 - from.y,
    }
    const target = dropTarget(racks, 'rack-1', relative)
    expect(target).toBe('rack-3')
    const moved = moveNodeToRack(t, 'node-1', target!)
    const after = topologyToFlow(moved)
    const m = after.nodes.find((n) => n.id === machineId('node-1'))
    expect(m?.type === 'machine' && m.parentId).toBe(rackId('rack-3'))
    expect(dropTarget(racks, 'rack-1', { x: -1000, y: -1000 })).toBeNull()
  })
})
