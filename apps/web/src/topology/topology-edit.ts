import {
  TOPOLOGY_VERSION,
  Topology,
  type TopologyNode,
  type TopologyRack,
  type TopologySite,
} from '@codebook/shared'

// Pure edits of a `Topology` value: each returns a new topology and never mutates its input, so the
// undo stack can keep earlier states by reference.

/** Where a rack sits: site index and rack index within that site. */
export interface RackRef {
  site: number
  rack: number
}

/** Where a node sits: its rack and its index within the rack. */
export interface NodeRef extends RackRef {
  node: number
}

/** Parameters of the "new topology" generator form. */
export interface GenerateOptions {
  name: string
  racks: number
  nodesPerRack: number
  nodeGbps: number
  uplinkGbps: number
  slots?: number
}

/**
 * A one-site topology of `racks` racks named `rack-1…`, each with `nodesPerRack` nodes named
 * `node-1…` (numbered across racks so names are unique), all on `host: 'local'`.
 */
export function generateTopology(o: GenerateOptions): Topology {
  const racks: TopologyRack[] = []
  let n = 0
  for (let r = 0; r < o.racks; r++) {
    const nodes: TopologyNode[] = []
    for (let i = 0; i < o.nodesPerRack; i++) {
      n++
      nodes.push({ name: `node-${n}`, host: 'local', slots: o.slots ?? 1, nicGbps: o.nodeGbps })
    }
    racks.push({ name: `rack-${r + 1}`, uplinkGbps: o.uplinkGbps, nodes })
  }
  return { version: TOPOLOGY_VERSION, name: o.name, sites: [{ name: 'site-1', racks }] }
}

/** The rack and index of the node named `name`, or null. */
export function findNode(t: Topology, name: string): NodeRef | null {
  for (const [si, s] of t.sites.entries())
    for (const [ri, r] of s.racks.entries()) {
      const ni = r.nodes.findIndex((n) => n.name === name)
      if (ni >= 0) return { site: si, rack: ri, node: ni }
    }
  return null
}

/** The site and index of the rack named `name`, or null. */
export function findRack(t: Topology, name: string): RackRef | null {
  for (const [si, s] of t.sites.entries()) {
    const ri = s.racks.findIndex((r) => r.name === name)
    if (ri >= 0) return { site: si, rack: ri }
  }
  return null
}

function mapRacks(t: Topology, f: (r: TopologyRack, ref: RackRef) => TopologyRack): Topology {
  return {
    ...t,
    sites: t.sites.map((s, si) => ({ ...s, racks: s.racks.map((r, ri) => f(r, { site: si, rack: ri })) })),
  }
}

/**
 * Moves node `nodeName` to the end of rack `rackName` (or before index `at`). Returns the same
 * topology object when nothing changes (unknown names, or dropped back on its own rack without `at`),
 * so callers can skip pushing an undo state.
 */
export function moveNodeToRack(t: Topology, nodeName: string, rackName: string, at?: number): Topology {
  const from = findNode(t, nodeName)
  const to = findRack(t, rackName)
  if (!from || !to) return t
  if (from.site === to.site && from.rack === to.rack && at === undefined) return t
  const node = t.sites[from.site]!.racks[from.rack]!.nodes[from.node]!
  const removed = mapRacks(t, (r, ref) =>
    ref.site === from.site && ref.rack === from.rack ? { ...r, nodes: r.nodes.filter((n) => n !== node) } : r,
  )
  return mapRacks(removed, (r, ref) => {
    if (ref.site !== to.site || ref.rack !== to.rack) return r
    const nodes = [...r.nodes]
    nodes.splice(at === undefined ? nodes.length : Math.max(0, Math.min(at, nodes.length)), 0, node)
    return { ...r, nodes }
  })
}

/** The first name `prefix-N` (N = 1, 2, …) not in `taken`. */
export function freshName(prefix: string, taken: Iterable<string>): string {
  const set = new Set(taken)
  for (let i = 1; ; i++) if (!set.has(`${prefix}-${i}`)) return `${prefix}-${i}`
}

function allNodeNames(t: Topology): string[] {
  return t.sites.flatMap((s) => s.racks.flatMap((r) => r.nodes.map((n) => n.name)))
}

function allRackNames(t: Topology): string[] {
  return t.sites.flatMap((s) => s.racks.map((r) => r.name))
}

/** A node to add next to `like` (same host, slots and NIC speed), with a fresh name. */
function newNode(t: Topology, like: TopologyNode | undefined): TopologyNode {
  return {
    name: freshName('node', allNodeNames(t)),
    host: like?.host ?? 'local',
    slots: like?.slots ?? 1,
    nicGbps: like?.nicGbps ?? 1,
  }
}

/** Appends a new node (copying the rack's last node's host, slots and NIC) to rack `rackName`. */
export function addNode(t: Topology, rackName: string): Topology {
  const to = findRack(t, rackName)
  if (!to) return t
  const rack = t.sites[to.site]!.racks[to.rack]!
  const node = newNode(t, rack.nodes.at(-1))
  return mapRacks(t, (r) => (r === rack ? { ...r, nodes: [...r.nodes, node] } : r))
}

/** Removes node `nodeName` (its rack may become empty; validation then says so). */
export function removeNode(t: Topology, nodeName: string): Topology {
  const at = findNode(t, nodeName)
  if (!at) return t
  return mapRacks(t, (r, ref) =>
    ref.site === at.site && ref.rack === at.rack
      ? { ...r, nodes: r.nodes.filter((_, i) => i !== at.node) }
      : r,
  )
}

/**
 * Appends a rack with one node to site `siteIndex`, copying the uplink and node settings of the
 * site's last rack: a rack without nodes would be invalid at once.
 */
export function addRack(t: Topology, siteIndex = 0): Topology {
  const site = t.sites[siteIndex]
  if (!site) return t
  const last = site.racks.at(-1)
  const rack: TopologyRack = {
    name: freshName('rack', allRackNames(t)),
    uplinkGbps: last?.uplinkGbps ?? 10,
    ...(last?.latencyUs !== undefined ? { latencyUs: last.latencyUs } : {}),
    nodes: [newNode(t, last?.nodes.at(-1))],
  }
  return { ...t, sites: t.sites.map((s, i) => (i === siteIndex ? { ...s, racks: [...s.racks, rack] } : s)) }
}

/** Removes rack `rackName` with its nodes. */
export function removeRack(t: Topology, rackName: string): Topology {
  const at = findRack(t, rackName)
  if (!at) return t
  return {
    ...t,
    sites: t.sites.map((s, si) =>
      si === at.site ? { ...s, racks: s.racks.filter((_, ri) => ri !== at.rack) } : s,
    ),
  }
}

/** Replaces fields of node `nodeName`. */
export function updateNode(t: Topology, nodeName: string, patch: Partial<TopologyNode>): Topology {
  const at = findNode(t, nodeName)
  if (!at) return t
  return mapRacks(t, (r, ref) =>
    ref.site === at.site && ref.rack === at.rack
      ? { ...r, nodes: r.nodes.map((n, i) => (i === at.node ? { ...n, ...patch } : n)) }
      : r,
  )
}

/** Replaces fields of rack `rackName` (not its nodes). */
export function updateRack(
  t: Topology,
  rackName: string,
  patch: Partial<Omit<TopologyRack, 'nodes'>>,
): Topology {
  const at = findRack(t, rackName)
  if (!at) return t
  return mapRacks(t, (r, ref) => (ref.site === at.site && ref.rack === at.rack ? { ...r, ...patch } : r))
}

/** Default link between two new sites: 1 Gbit/s, 50 ms. */
const DEFAULT_SITE_GBPS = 1
const DEFAULT_SITE_LATENCY_MS = 50

/**
 * The site-link matrices for `m` sites: the existing ones when they already have that shape, else
 * padded/truncated copies with defaults off the diagonal (the diagonal is the intra-site link).
 */
export function siteMatrices(t: Topology): { bandwidthGbps: number[][]; latencyMs: number[][] } {
  const m = t.sites.length
  const fit = (mat: number[][] | undefined, diag: number, off: number) =>
    Array.from({ length: m }, (_, i) =>
      Array.from({ length: m }, (_, j) => mat?.[i]?.[j] ?? (i === j ? diag : off)),
    )
  return {
    bandwidthGbps: fit(t.siteLinks?.bandwidthGbps, 0, DEFAULT_SITE_GBPS),
    latencyMs: fit(t.siteLinks?.latencyMs, 0, DEFAULT_SITE_LATENCY_MS),
  }
}

/**
 * Adds a site with one rack of one node, and grows the site-link matrices by one row and column
 * (when there were matrices, or now that there is more than one site).
 */
export function addSite(t: Topology): Topology {
  const name = freshName(
    'site',
    t.sites.map((s) => s.name),
  )
  const last = t.sites.at(-1)?.racks.at(-1)
  const site: TopologySite = {
    name,
    racks: [
      {
        name: freshName('rack', allRackNames(t)),
        uplinkGbps: last?.uplinkGbps ?? 10,
        nodes: [newNode(t, last?.nodes.at(-1))],
      },
    ],
  }
  const grown: Topology = { ...t, sites: [...t.sites, site] }
  return { ...grown, siteLinks: siteMatrices(grown) }
}

/** Removes site `index` and its row and column of the site-link matrices. */
export function removeSite(t: Topology, index: number): Topology {
  if (!t.sites[index]) return t
  const sites = t.sites.filter((_, i) => i !== index)
  if (!t.siteLinks) return { ...t, sites }
  const cut = (mat: number[][]) =>
    mat.filter((_, i) => i !== index).map((row) => row.filter((_, j) => j !== index))
  const { siteLinks: _, ...rest } = t
  // One site has no site-to-site links left to describe.
  if (sites.length < 2) return { ...rest, sites }
  return {
    ...rest,
    sites,
    siteLinks: { bandwidthGbps: cut(t.siteLinks.bandwidthGbps), latencyMs: cut(t.siteLinks.latencyMs) },
  }
}

/** Replaces fields of site `index` (not its racks). */
export function updateSite(
  t: Topology,
  index: number,
  patch: Partial<Omit<TopologySite, 'racks'>>,
): Topology {
  if (!t.sites[index]) return t
  return { ...t, sites: t.sites.map((s, i) => (i === index ? { ...s, ...patch } : s)) }
}

/** Sets one cell of a site-link matrix (row = from, column = to), filling missing matrices first. */
export function setSiteLink(
  t: Topology,
  key: 'bandwidthGbps' | 'latencyMs',
  from: number,
  to: number,
  value: number,
): Topology {
  const m = siteMatrices(t)
  m[key] = m[key].map((row, i) => (i === from ? row.map((v, j) => (j === to ? value : v)) : row))
  return { ...t, siteLinks: m }
}

/** One validation problem: where (a readable path) and what. */
export interface TopologyProblem {
  where: string
  message: string
}

/**
 * Checks `t` against the shared `Topology` schema (the same rules the server applies) and returns
 * the problems with readable locations ("rack 'r2' › nodes"), empty when it is valid.
 */
export function validateTopology(t: unknown): TopologyProblem[] {
  const parsed = Topology.safeParse(t)
  if (parsed.success) return []
  return parsed.error.issues.map((issue) => ({ where: describePath(t, issue.path), message: issue.message }))
}

function describePath(t: unknown, path: readonly PropertyKey[]): string {
  const parts: string[] = []
  let cur: unknown = t
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!
    const next =
      cur !== null && typeof cur === 'object' ? (cur as Record<PropertyKey, unknown>)[key] : undefined
    const parent = path[i - 1]
    if (typeof key === 'number' && (parent === 'sites' || parent === 'racks' || parent === 'nodes')) {
      const label = parent === 'sites' ? 'site' : parent === 'racks' ? 'rack' : 'node'
      const nm = next !== null && typeof next === 'object' ? (next as { name?: unknown }).name : undefined
      parts.pop()
      parts.push(typeof nm === 'string' && nm !== '' ? `${label} '${nm}'` : `${label} ${key + 1}`)
    } else parts.push(String(key))
    cur = next
  }
  return parts.length === 0 ? 'topology' : parts.join(' › ')
}

/** Counts for a header line: sites, racks, nodes, slots. */
export function topologyCounts(t: Topology): { sites: number; racks: number; nodes: number; slots: number } {
  let racks = 0
  let nodes = 0
  let slots = 0
  for (const s of t.sites)
    for (const r of s.racks) {
      racks++
      nodes += r.nodes.length
      for (const n of r.nodes) slots += n.slots
    }
  return { sites: t.sites.length, racks, nodes, slots }
}
