import {
  type CreatePlanInput,
  type ParseTopologyRequest,
  ParseTopologyResult,
  PlanResult,
  RenderTopologyResult,
  type SimulateBroadcastRequest,
  SimulateBroadcastResult,
  type SimulateKmeansRequest,
  SimulateKmeansResult,
  type Topology,
  TopologyList,
  TopologyRecord,
  type TopologySummary,
  type TopologyTextFormat,
  TopologyVersionList,
  type TopologyVersionSummary,
} from '@codebook/shared'
import { readAllPages, request } from './client.ts'

const base = (id: string) => `/api/topologies/${encodeURIComponent(id)}`

/** `GET /api/topologies`: stored topologies, newest updated first. */
export function listTopologies(): Promise<TopologySummary[]> {
  return readAllPages('/api/topologies', TopologyList, (page) => page.topologies)
}

/** `GET /api/topologies/:id` (latest version) or `/:id/versions/:version`. */
export function getTopology(id: string, version?: number): Promise<TopologyRecord> {
  return request('GET', version === undefined ? base(id) : `${base(id)}/versions/${version}`, TopologyRecord)
}

/** `GET /api/topologies/:id/versions`: newest first. */
export async function listTopologyVersions(id: string): Promise<TopologyVersionSummary[]> {
  return (await request('GET', `${base(id)}/versions`, TopologyVersionList)).versions
}

/** `POST /api/topologies`: stores a new topology as version 1. */
export function createTopology(topology: Topology, message?: string): Promise<TopologyRecord> {
  return request('POST', '/api/topologies', TopologyRecord, message ? { topology, message } : { topology })
}

/** `POST /api/topologies/:id/versions`: saves `topology` as the next version. */
export function saveTopologyVersion(
  id: string,
  topology: Topology,
  message?: string,
): Promise<TopologyRecord> {
  return request(
    'POST',
    `${base(id)}/versions`,
    TopologyRecord,
    message ? { topology, message } : { topology },
  )
}

/** `DELETE /api/topologies/:id`: removes the topology and all its versions. */
export function deleteTopology(id: string): Promise<void> {
  return request('DELETE', base(id), null)
}

/** `POST /api/topology-formats/parse`: JSON, Hadoop rack map or Slurm topology.conf text → topology. */
export async function parseTopologyText(input: ParseTopologyRequest): Promise<Topology> {
  return (await request('POST', '/api/topology-formats/parse', ParseTopologyResult, input)).topology
}

/** `POST /api/topology-formats/render`: topology → text in `format`. */
export async function renderTopologyText(format: TopologyTextFormat, topology: Topology): Promise<string> {
  return (await request('POST', '/api/topology-formats/render', RenderTopologyResult, { format, topology }))
    .text
}

/** `POST /api/simulate/broadcast`: simulated seconds per algorithm and node count. */
export function simulateBroadcast(input: SimulateBroadcastRequest): Promise<SimulateBroadcastResult> {
  return request('POST', '/api/simulate/broadcast', SimulateBroadcastResult, input)
}

/** `POST /api/simulate/kmeans`: predicted per-stage seconds of one K-means iteration. */
export function simulateKmeans(input: SimulateKmeansRequest): Promise<SimulateKmeansResult> {
  return request('POST', '/api/simulate/kmeans', SimulateKmeansResult, input)
}

/**
 * `POST /api/plans`: each planner's modelled cost and the cheapest plan's rank → site / node
 * mapping; with `topology` the ranks go onto its own sites and nodes (saved or not).
 */
export function planPlacement(input: CreatePlanInput & { topology?: Topology }): Promise<PlanResult> {
  return request('POST', '/api/plans', PlanResult, input)
}
