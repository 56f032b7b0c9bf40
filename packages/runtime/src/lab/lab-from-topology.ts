import type { Topology } from '@codebook/shared'
import { CodebookError } from '../errors.ts'
import type { LabSpec } from './lab-plan.ts'

/**
 * The lab of a topology: its racks (across all sites, in order), their host counts and rates
 * (Gbit/s × 1000 × `scale`, so 1 GbE with scale 0.1 is 100 Mbit/s). The lab builds racks of one
 * size with one node rate and one uplink rate; a topology that varies them is refused.
 */
export function labSpecFromTopology(
  topology: Topology,
  scale: number,
  extra: Pick<LabSpec, 'id' | 'delayMs' | 'tcpBufferKb' | 'queueKb'>,
): LabSpec {
  const racks = topology.sites.flatMap((s) => s.racks)
  const sizes = new Set(racks.map((r) => r.nodes.length))
  const nics = new Set(racks.flatMap((r) => r.nodes.map((n) => n.nicGbps)))
  const uplinks = new Set(racks.map((r) => r.uplinkGbps))
  const varies = [
    sizes.size > 1 && `rack sizes ${[...sizes].join(', ')}`,
    nics.size > 1 && `NIC rates ${[...nics].join(', ')} Gbit/s`,
    uplinks.size > 1 && `uplink rates ${[...uplinks].join(', ')} Gbit/s`,
  ].filter(Boolean)
  if (varies.length > 0)
    throw new CodebookError(
      'LAB_TOPOLOGY_NOT_UNIFORM',
      `topology "${topology.name}": the lab builds equal racks with one node and one uplink rate; it has ${varies.join('; ')}`,
    )
  return {
    ...extra,
    racks: racks.length,
    hostsPerRack: racks[0]!.nodes.length,
    nodeMbps: [...nics][0]! * 1000 * scale,
    uplinkMbps: [...uplinks][0]! * 1000 * scale,
  }
}
