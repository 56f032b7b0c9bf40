import { type Topology, topologyNodes } from '@codebook/shared'
import { UsageError } from '../errors.ts'
import { DEFAULT_NIC_LATENCY_S, gbpsToBytes } from '../simulator/topology-cluster.ts'
import { type SiteProfile, sphereCoordinates, validateProfile } from './site-profile.ts'

/**
 * The α-β site profile of a topology, so a plan maps ranks onto the topology's own sites and
 * nodes (one process per node) and its plan runs on the topology as it is:
 * - between sites: the topology's `siteLinks` (one-way latency, bandwidth of the site pair), as
 *   the simulator reads them;
 * - within a site: latency of two NIC hops (node → rack switch → node; the rack's `latencyUs`,
 *   else the simulator's 25 µs default) and the slowest NIC of the site (one flow's bottleneck);
 * - coordinates: latitude/longitude on the unit sphere when every site has both, else each
 *   site's row of latencies (sites close in latency group together in the planner's K-means).
 * A topology of several sites without `siteLinks` cannot be priced: `TOPOLOGY_NO_SITE_LINKS`.
 */
export function siteProfileOfTopology(topology: Topology): SiteProfile {
  const m = topology.sites.length
  if (m > 1 && !topology.siteLinks)
    throw new UsageError(
      'TOPOLOGY_NO_SITE_LINKS',
      `topology "${topology.name}" has ${m} sites but no site links: give each site pair a latency and bandwidth`,
    )
  const nodes = topologyNodes(topology)
  const intra = topology.sites.map((site) => {
    const mine = nodes.filter((n) => n.site === site.name)
    const rackLatency = new Map(site.racks.map((r) => [r.name, r.latencyUs] as const))
    const hop = (rack: string) => {
      const us = rackLatency.get(rack)
      return us === undefined ? DEFAULT_NIC_LATENCY_S : us * 1e-6
    }
    const meanHop = mine.reduce((sum, n) => sum + hop(n.rack), 0) / mine.length
    return {
      latency: 2 * meanHop,
      bandwidth: gbpsToBytes(Math.min(...mine.map((n) => n.node.nicGbps))),
      nodes: mine.length,
    }
  })
  const links = topology.siteLinks
  const latency = topology.sites.map((_, s) =>
    topology.sites.map((__, t) => (s === t ? intra[s]!.latency : links!.latencyMs[s]![t]! * 1e-3)),
  )
  const bandwidth = topology.sites.map((_, s) =>
    topology.sites.map((__, t) =>
      s === t ? intra[s]!.bandwidth : gbpsToBytes(links!.bandwidthGbps[s]![t]!),
    ),
  )
  const located = topology.sites.every((s) => s.latitude !== undefined && s.longitude !== undefined)
  const profile: SiteProfile = {
    name: topology.name,
    sites: topology.sites.map((s) => s.name),
    latency,
    bandwidth,
    coordinates: located
      ? topology.sites.map((s) => sphereCoordinates(s.latitude!, s.longitude!))
      : latency.map((row) => row.map((seconds) => seconds * 1e3)),
    nodes: intra.map((i) => i.nodes),
  }
  validateProfile(profile)
  return profile
}
