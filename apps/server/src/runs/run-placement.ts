import { workerRacks } from '@codebook/runtime'
import type { RunParams, Topology } from '@codebook/shared'
import { ApiError } from '../http/api-error.ts'

/** A saved topology version (latest when `version` is absent); throws ApiError 404 when unknown. */
export type GetTopology = (id: string, version?: number) => Promise<{ topology: Topology; version: number }>

/** Where a run's workers sit: the topology version it names and the rack of each worker. */
export interface RunPlacement {
  version: number
  /** Rack of worker i = the rack of the topology's i-th node. */
  racks: string[]
}

/**
 * The placement of a run's workers, or null when the run names no topology.
 * @throws ApiError 400 `TOPOLOGY_UNAVAILABLE` without a topology store; `TOPOLOGY_TOO_SMALL` when
 * the topology has fewer nodes than workers.
 */
export async function runPlacement(
  params: RunParams,
  getTopology: GetTopology | undefined,
): Promise<RunPlacement | null> {
  if (params.topologyId === undefined) return null
  if (getTopology === undefined)
    throw new ApiError(400, 'TOPOLOGY_UNAVAILABLE', 'this server has no topology store')
  const found = await getTopology(params.topologyId, params.topologyVersion)
  return { version: found.version, racks: workerRacks(found.topology, params.workers) }
}
