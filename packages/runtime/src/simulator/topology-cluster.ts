import { type Topology, topologyNodes } from '@codebook/shared'
import { UsageError } from '../errors.ts'
import type { ClusterSpec } from './cluster-network.ts'

/** Gbit/s → bytes/s, as the simulator reads a topology's rates. */
export const gbpsToBytes = (gbps: number) => (gbps * 1e9) / 8

/** Default one-way NIC latency when a rack gives none: a switched 1 GbE hop with a kernel TCP stack. */
export const DEFAULT_NIC_LATENCY_S = 25e-6

/**
 * The simulator's view of the first `nodes` nodes of a topology, in topology order (sites, racks,
 * nodes as listed), with Gbit/s turned into bytes/s and µs/ms into seconds. Racks and sites that
 * keep no node are dropped.
 */
export function clusterFromTopology(
  topology: Topology,
  nodes?: number,
): { spec: ClusterSpec; racks: string[] } {
  const placed = topologyNodes(topology)
  const count = nodes ?? placed.length
  if (!Number.isInteger(count) || count < 1 || count > placed.length)
    throw new UsageError(
      'SIM_TOO_MANY_NODES',
      `asked for ${count} nodes; the topology "${topology.name}" has ${placed.length}`,
    )
  const used = placed.slice(0, count)
  const siteIndex = new Map(topology.sites.map((s, i) => [s.name, i]))
  const rackIndex = new Map<string, number>()
  const racks: ClusterSpec['racks'] = []
  for (const site of topology.sites)
    for (const rack of site.racks) {
      if (!used.some((u) => u.rack === rack.name)) continue
      rackIndex.set(rack.name, racks.length)
      racks.push({
        name: rack.name,
        site: siteIndex.get(site.name)!,
        uplinkBandwidth: gbpsToBytes(rack.uplinkGbps),
        uplinkLatency: (topology.core?.latencyUs ?? 0) * 1e-6,
      })
    }
  const rackLatency = new Map(
    topology.sites.flatMap((s) => s.racks.map((r) => [r.name, r.latencyUs] as const)),
  )
  const spec: ClusterSpec = {
    nodes: used.map((u) => {
      const latencyUs = rackLatency.get(u.rack)
      return {
        name: u.node.name,
        rack: rackIndex.get(u.rack)!,
        nicBandwidth: gbpsToBytes(u.node.nicGbps),
        nicLatency: latencyUs === undefined ? DEFAULT_NIC_LATENCY_S : latencyUs * 1e-6,
      }
    }),
    racks,
  }
  if (topology.siteLinks) {
    spec.siteBandwidth = topology.siteLinks.bandwidthGbps.map((row) => row.map(gbpsToBytes))
    spec.siteLatency = topology.siteLinks.latencyMs.map((row) => row.map((ms) => ms * 1e-3))
  }
  return { spec, racks: used.map((u) => u.rack) }
}
