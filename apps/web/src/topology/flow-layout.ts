import type { Topology, TopologyNode, TopologyRack } from '@codebook/shared'

// Topology → React Flow nodes, as pure data. Racks are group (parent) nodes laid out in rows per
// site; machines are their children in a grid. Positions are derived, never stored: the topology
// is the only state, so undo, save and reload cannot disagree with the picture.

/** Size of one machine box and the spacing of the grid inside a rack, px. */
export const MACHINE_W = 112
export const MACHINE_H = 40
const GAP = 8
const RACK_PAD = 12
/** Room for the rack's title bar above its machines. */
const RACK_HEAD = 44
const RACK_GAP = 28
/** Room for the site's title above its racks. */
const SITE_HEAD = 36
const SITE_GAP = 36
/** Machine columns in a rack: a near-square grid, 2 to 4 wide (30 nodes: 4 × 8). */
const MAX_COLS = 4

/** Racks per row: up to four in one row, more wrap into a near-square block of racks. */
function racksPerRow(racks: number): number {
  return racks <= 4 ? Math.max(1, racks) : Math.ceil(Math.sqrt(racks))
}

/** Data of a rack group node. */
export interface RackData extends Record<string, unknown> {
  rack: TopologyRack
  site: string
}

/** Data of a machine node. */
export interface MachineData extends Record<string, unknown> {
  node: TopologyNode
  rack: string
}

/** Data of a site title node. */
export interface SiteData extends Record<string, unknown> {
  name: string
  racks: number
  nodes: number
}

interface BaseFlowNode<K extends string, D> {
  id: string
  type: K
  position: { x: number; y: number }
  data: D
  width: number
  height: number
  style: { width: number; height: number }
  /** The known size, so React Flow need not measure 150 boxes before it can draw. */
  measured: { width: number; height: number }
  draggable: boolean
  selectable: boolean
  selected: boolean
}

/** A flow node as React Flow takes it (a structural subset of its `Node`). */
export type FlowNode =
  | BaseFlowNode<'rack', RackData>
  | (BaseFlowNode<'machine', MachineData> & { parentId: string })
  | BaseFlowNode<'site', SiteData>

/** An axis-aligned box in flow coordinates. */
export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

/** The derived picture: flow nodes (parents before children) and each rack's box by rack name. */
export interface FlowLayout {
  nodes: FlowNode[]
  racks: Map<string, Rect>
}

/** Flow node id of rack `name`. */
export const rackId = (name: string) => `rack:${name}`
/** Flow node id of machine `name`. */
export const machineId = (name: string) => `node:${name}`

/** Grid columns of a rack holding `n` machines. */
export function rackColumns(n: number): number {
  return Math.min(MAX_COLS, Math.max(2, Math.ceil(Math.sqrt(n))))
}

/** Size of a rack holding `n` machines (an empty rack keeps room for one row to drop into). */
export function rackSize(n: number): { width: number; height: number } {
  const cols = rackColumns(n)
  const rows = Math.max(1, Math.ceil(n / cols))
  return {
    width: RACK_PAD * 2 + cols * MACHINE_W + (cols - 1) * GAP,
    height: RACK_HEAD + RACK_PAD + rows * MACHINE_H + (rows - 1) * GAP,
  }
}

/** Position of the `i`-th machine inside a rack of `n`, relative to the rack's top-left corner. */
export function machinePosition(i: number, n: number): { x: number; y: number } {
  const cols = rackColumns(n)
  return {
    x: RACK_PAD + (i % cols) * (MACHINE_W + GAP),
    y: RACK_HEAD + Math.floor(i / cols) * (MACHINE_H + GAP),
  }
}

/** Keeps flow node objects across layouts so unchanged machines stay `===` (React.memo skips them). */
export type FlowCache = Map<string, FlowNode>

function same(a: FlowNode | undefined, b: FlowNode): boolean {
  if (!a || a.type !== b.type || a.selected !== b.selected) return false
  if (a.position.x !== b.position.x || a.position.y !== b.position.y) return false
  if (a.width !== b.width || a.height !== b.height) return false
  if (a.type === 'machine' && b.type === 'machine')
    return a.data.node === b.data.node && a.parentId === b.parentId
  if (a.type === 'rack' && b.type === 'rack')
    return a.data.rack === b.data.rack && a.data.site === b.data.site
  if (a.type === 'site' && b.type === 'site')
    return a.data.name === b.data.name && a.data.racks === b.data.racks && a.data.nodes === b.data.nodes
  return false
}

/**
 * Lays out `t`: each site a band of racks (a near-square block past four racks), each rack a near-square grid of its
 * machines. `selected` is the id of the selected flow node. With a `cache` from the previous call,
 * nodes that did not change are returned as the same objects (the cache is updated in place).
 */
export function topologyToFlow(t: Topology, selected: string | null = null, cache?: FlowCache): FlowLayout {
  const nodes: FlowNode[] = []
  const racks = new Map<string, Rect>()
  const keep = (n: FlowNode): FlowNode => {
    const old = cache?.get(n.id)
    if (old && same(old, n)) return old
    cache?.set(n.id, n)
    return n
  }
  let y = 0
  for (const site of t.sites) {
    const siteNodes = site.racks.reduce((sum, r) => sum + r.nodes.length, 0)
    nodes.push(
      keep({
        id: `site:${site.name}`,
        type: 'site',
        position: { x: 0, y },
        data: { name: site.name, racks: site.racks.length, nodes: siteNodes },
        width: 480,
        height: SITE_HEAD - 8,
        style: { width: 480, height: SITE_HEAD - 8 },
        measured: { width: 480, height: SITE_HEAD - 8 },
        draggable: false,
        selectable: false,
        selected: false,
      }),
    )
    y += SITE_HEAD
    const perRow = racksPerRow(site.racks.length)
    for (let start = 0; start < Math.max(site.racks.length, 1); start += perRow) {
      const row = site.racks.slice(start, start + perRow)
      let x = 0
      let rowHeight = 0
      for (const rack of row) {
        const size = rackSize(rack.nodes.length)
        const id = rackId(rack.name)
        racks.set(rack.name, { x, y, ...size })
        nodes.push(
          keep({
            id,
            type: 'rack',
            position: { x, y },
            data: { rack, site: site.name },
            ...size,
            style: size,
            measured: size,
            draggable: false,
            selectable: true,
            selected: selected === id,
          }),
        )
        rack.nodes.forEach((node, i) => {
          const mid = machineId(node.name)
          nodes.push(
            keep({
              id: mid,
              type: 'machine',
              parentId: id,
              position: machinePosition(i, rack.nodes.length),
              data: { node, rack: rack.name },
              width: MACHINE_W,
              height: MACHINE_H,
              style: { width: MACHINE_W, height: MACHINE_H },
              measured: { width: MACHINE_W, height: MACHINE_H },
              draggable: true,
              selectable: true,
              selected: selected === mid,
            }),
          )
        })
        x += size.width + RACK_GAP
        rowHeight = Math.max(rowHeight, size.height)
      }
      y += rowHeight + RACK_GAP
    }
    y += SITE_GAP - RACK_GAP
  }
  // Forget nodes that no longer exist so the cache does not grow with every rename.
  if (cache) {
    const live = new Set(nodes.map((n) => n.id))
    for (const id of cache.keys()) if (!live.has(id)) cache.delete(id)
  }
  return { nodes, racks }
}

/** The rack whose box contains `point`, or null (on a rack's edge counts as inside). */
export function rackAt(racks: Map<string, Rect>, point: { x: number; y: number }): string | null {
  for (const [name, r] of racks)
    if (point.x >= r.x && point.x <= r.x + r.width && point.y >= r.y && point.y <= r.y + r.height) return name
  return null
}

/**
 * Where a dragged machine was dropped: the rack under its centre, given its position relative to
 * its parent rack `fromRack` (as React Flow reports it on drag stop). Null outside every rack.
 */
export function dropTarget(
  racks: Map<string, Rect>,
  fromRack: string,
  relative: { x: number; y: number },
): string | null {
  const parent = racks.get(fromRack)
  if (!parent) return null
  return rackAt(racks, {
    x: parent.x + relative.x + MACHINE_W / 2,
    y: parent.y + relative.y + MACHINE_H / 2,
  })
}
