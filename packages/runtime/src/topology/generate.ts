import { TOPOLOGY_VERSION, Topology } from '@codebook/shared'
import { UsageError } from '../errors.ts'

/** Parameters of {@link generateTopology}. */
export interface GenerateTopologyOptions {
  /** Racks per site. */
  racks: number
  nodesPerRack: number
  nodeGbps: number
  uplinkGbps: number
  /** Sites (each with `racks` racks); default 1. */
  sites?: number
  slots?: number
  /** Site-to-site defaults when sites > 1. */
  siteGbps?: number
  siteLatencyMs?: number
  name?: string
}

/**
 * A regular topology: `sites` sites × `racks` racks × `nodesPerRack` nodes, all on host 'local'.
 * Names are global (`site-0`, `rack-3`, `node-17`) so they stay unique across sites; node order
 * is site by site, rack by rack, so worker i lands on `node-i`.
 */
export function generateTopology(o: GenerateTopologyOptions): Topology {
  const sites = o.sites ?? 1
  for (const [k, v] of Object.entries({
    racks: o.racks,
    nodesPerRack: o.nodesPerRack,
    sites,
    slots: o.slots ?? 1,
  })) {
    if (!Number.isInteger(v) || v < 1)
      throw new UsageError('TOPOLOGY_BAD_PARAM', `${k} must be a positive integer, got ${v}`)
  }
  let rack = 0
  let node = 0
  const topo = {
    version: TOPOLOGY_VERSION,
    name: o.name ?? `${sites}x${o.racks}x${o.nodesPerRack}`,
    sites: Array.from({ length: sites }, (_, s) => ({
      name: `site-${s}`,
      racks: Array.from({ length: o.racks }, () => ({
        name: `rack-${rack++}`,
        uplinkGbps: o.uplinkGbps,
        nodes: Array.from({ length: o.nodesPerRack }, () => ({
          name: `node-${node++}`,
          host: 'local',
          slots: o.slots ?? 1,
          nicGbps: o.nodeGbps,
        })),
      })),
    })),
    ...(sites > 1
      ? {
          siteLinks: {
            bandwidthGbps: square(sites, (i, j) => (i === j ? 0 : (o.siteGbps ?? o.uplinkGbps))),
            latencyMs: square(sites, (i, j) => (i === j ? 0 : (o.siteLatencyMs ?? 20))),
          },
        }
      : {}),
  }
  const parsed = Topology.safeParse(topo)
  if (!parsed.success)
    throw new UsageError('TOPOLOGY_INVALID', parsed.error.issues.map((i) => i.message).join('; '))
  return parsed.data
}

function square(m: number, f: (i: number, j: number) => number): number[][] {
  return Array.from({ length: m }, (_, i) => Array.from({ length: m }, (_, j) => f(i, j)))
}
