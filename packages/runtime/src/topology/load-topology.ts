import { type Topology, topologyNodes } from '@codebook/shared'
import { UsageError } from '../errors.ts'
import { readTopologyFile, topologyFormatFromPath } from './formats/topology-format.ts'

/**
 * Reads and validates a topology file: a Hadoop rack map or a Slurm topology.conf when the
 * extension says so (`.txt`, `.map`, `.data`, `.hadoop`; `.conf`), the project's JSON otherwise.
 * Errors are coded: `TOPOLOGY_UNREADABLE`, `TOPOLOGY_PARSE` with the line, or the schema rule's
 * code from `validateTopology` (e.g. `TOPOLOGY_DUPLICATE_NAME`) with its path.
 */
export async function readTopology(file: string): Promise<Topology> {
  let format: ReturnType<typeof topologyFormatFromPath> = 'json'
  try {
    format = topologyFormatFromPath(file)
  } catch {
    // Any other extension (or none) is read as JSON, as before the other formats existed.
  }
  return readTopologyFile(file, format)
}

/**
 * Rack of each of p workers: worker i ↔ the i-th node in topology order. Without a topology all
 * workers share one rack.
 */
export function workerRacks(t: Topology | null, p: number): string[] {
  if (!t) return Array.from({ length: p }, () => 'rack-0')
  const nodes = topologyNodes(t)
  if (nodes.length < p)
    throw new UsageError(
      'TOPOLOGY_TOO_SMALL',
      `topology '${t.name}' has ${nodes.length} nodes, ${p} workers were asked for`,
    )
  return nodes.slice(0, p).map((n) => n.rack)
}

/**
 * Rack of a worker by its host name: the topology node of that name (or of its short name, the
 * part before the first dot, as Slurm names nodes), else undefined. How joined workers are placed.
 */
export function rackOfHost(t: Topology): (hostName: string) => string | undefined {
  const racks = new Map(topologyNodes(t).map((n) => [n.node.name, n.rack]))
  return (hostName) => racks.get(hostName) ?? racks.get(hostName.split('.')[0]!)
}

/**
 * Rack of each worker placed by a mapping: worker i ↔ the node named `mapping[i]` (a plan's
 * rank → node), instead of the i-th node. Names may repeat (workers sharing a node).
 * @throws UsageError `MAPPING_UNKNOWN_NODE` naming the first name the topology lacks.
 */
export function mappedWorkerRacks(t: Topology, mapping: readonly string[]): string[] {
  const racks = new Map(topologyNodes(t).map((n) => [n.node.name, n.rack]))
  return mapping.map((name, rank) => {
    const rack = racks.get(name)
    if (rack === undefined)
      throw new UsageError(
        'MAPPING_UNKNOWN_NODE',
        `mapping[${rank}] names node '${name}', which topology '${t.name}' does not have`,
      )
    return rack
  })
}
