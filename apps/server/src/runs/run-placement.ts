import { mappedWorkerRacks, workerRacks } from '@codebook/runtime/topology'
import type { RunParams, Topology } from '@codebook/shared'
import { ApiError } from '../http/api-error.ts'

/** A saved topology version (latest when `version` is absent); throws ApiError 404 when unknown. */
export type GetTopology = (id: string, version?: number) => Promise<{ topology: Topology; version: number }>

/** Where a run's workers sit: the topology version it names and the rack of each worker. */
export interface RunPlacement {
  version: number
  /** `local` runs: rack of worker i = the rack of node `mapping[i]`, else of the topology's i-th node. */
  racks?: string[]
  /** `join` and `slurm` runs: the topology whose node names place a worker by its host (`rackOfHost`). */
  hostTopology?: Topology
}

/**
 * The placement of a run's workers, or null when the run names no topology. Local workers take
 * the topology's nodes in order; workers on real hosts (`join`, `slurm`) the rack of their host.
 * @throws ApiError 400 `TOPOLOGY_UNAVAILABLE` without a topology store; `TOPOLOGY_TOO_SMALL` when
 * the topology has fewer nodes than the workers of a local run; `MAPPING_NEEDS_TOPOLOGY`,
 * `MAPPING_NEEDS_LOCAL`, `MAPPING_LENGTH` for a mapping without a topology, on real hosts, or not
 * one node per worker; `MAPPING_UNKNOWN_NODE` for a node name the topology lacks.
 */
export async function runPlacement(
  params: RunParams,
  getTopology: GetTopology | undefined,
): Promise<RunPlacement | null> {
  if (params.mapping !== undefined) checkMappingShape(params)
  if (params.topologyId === undefined) return null
  if (getTopology === undefined)
    throw new ApiError(400, 'TOPOLOGY_UNAVAILABLE', 'this server has no topology store')
  const found = await getTopology(params.topologyId, params.topologyVersion)
  if ((params.launcher ?? 'local') !== 'local')
    return { version: found.version, hostTopology: found.topology }
  const racks =
    params.mapping !== undefined
      ? mappedWorkerRacks(found.topology, params.mapping)
      : workerRacks(found.topology, params.workers)
  return { version: found.version, racks }
}

/** What a mapping needs before any topology is read. */
function checkMappingShape(params: RunParams): void {
  if (params.topologyId === undefined)
    throw new ApiError(400, 'MAPPING_NEEDS_TOPOLOGY', 'mapping names topology nodes: give topologyId too')
  if ((params.launcher ?? 'local') !== 'local')
    throw new ApiError(
      400,
      'MAPPING_NEEDS_LOCAL',
      `mapping places local workers; ${params.launcher} workers take the rack of the host they run on`,
    )
  if (params.mapping!.length !== params.workers)
    throw new ApiError(
      400,
      'MAPPING_LENGTH',
      `mapping has ${params.mapping!.length} node names, one per worker (${params.workers}) is needed`,
    )
}
