import { generateTopology } from '@codebook/runtime/topology'
import type { Topology } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { TopologyRepo } from './topology-repo.ts'
import type { TopologyService } from './topology-service.ts'

/** Name of the demo topology. */
export const DEMO_TOPOLOGY_NAME = 'papers-150'

/** meta key set once the demo topology was created, so deleting it does not bring it back. */
export const DEMO_TOPOLOGY_SEEDED_KEY = 'demo-topology-seeded'

/**
 * The papers' cluster: 150 nodes with 1 GbE links in racks of at most 42 behind 10 GbE uplinks.
 * It is `codebook topology generate --racks 4 --nodes-per-rack 42 --node-gbps 1 --uplink-gbps 10`
 * (docs/simulator.md) cut to its first 150 nodes, as `simulate --nodes 150` uses it: racks of
 * 42, 42, 42 and 24.
 */
export function papersTopology(): Topology {
  const full = generateTopology({ racks: 4, nodesPerRack: 42, nodeGbps: 1, uplinkGbps: 10 })
  let left = 150
  const site = full.sites[0]!
  const racks = site.racks.map((r) => {
    const nodes = r.nodes.slice(0, Math.max(0, left))
    left -= nodes.length
    return { ...r, nodes }
  })
  return {
    ...full,
    name: DEMO_TOPOLOGY_NAME,
    sites: [{ ...site, racks: racks.filter((r) => r.nodes.length) }],
  }
}

/**
 * Creates the demo topology on a home's first start (once: a meta key remembers it).
 * @returns the new topology's id, or undefined when nothing was seeded.
 */
export async function seedDemoTopology(deps: {
  repo: TopologyRepo
  service: TopologyService
  log: FastifyBaseLogger
}): Promise<string | undefined> {
  if ((await deps.repo.getMeta(DEMO_TOPOLOGY_SEEDED_KEY)) !== undefined) return undefined
  const record = await deps.service.create({
    topology: papersTopology(),
    message: 'demo: the papers’ cluster (150 nodes, racks of 42, 1 GbE nodes, 10 GbE uplinks)',
  })
  await deps.repo.setMeta(DEMO_TOPOLOGY_SEEDED_KEY, { topologyId: record.id, at: record.createdAt })
  deps.log.info({ topologyId: record.id }, 'demo topology seeded')
  return record.id
}
