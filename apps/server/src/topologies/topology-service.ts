import { randomUUID } from 'node:crypto'
import {
  type ListPageQuery,
  TOPOLOGY_LIMITS,
  Topology,
  type TopologyRecord,
  type TopologySummary,
  type TopologyVersionSummary,
  topologyNodes,
} from '@codebook/shared'
import type { ListPage } from '../db/list-page.ts'
import { ApiError } from '../http/api-error.ts'
import type { StoredTopologyVersion, TopologyRepo } from './topology-repo.ts'

/** Issues listed in an `INVALID_TOPOLOGY` message; the rest are counted. */
const MAX_LISTED_ISSUES = 10

/**
 * Validates a topology from a request: 400 `INVALID_TOPOLOGY` listing each schema issue as
 * `path: message` (`(root)` for the whole), 400 `TOPOLOGY_TOO_LARGE` beyond
 * {@link TOPOLOGY_LIMITS}.maxNodes nodes.
 */
export function checkTopology(json: unknown, field = 'topology'): Topology {
  const r = Topology.safeParse(json)
  if (!r.success) {
    const issues = r.error.issues
    const listed = issues.slice(0, MAX_LISTED_ISSUES).map((i) => {
      const path = [field, ...i.path.map(String)].join('.')
      return `${path}: ${i.message}`
    })
    if (issues.length > MAX_LISTED_ISSUES) listed.push(`… and ${issues.length - MAX_LISTED_ISSUES} more`)
    throw new ApiError(400, 'INVALID_TOPOLOGY', listed.join('; '))
  }
  const nodes = topologyNodes(r.data).length
  if (nodes > TOPOLOGY_LIMITS.maxNodes)
    throw new ApiError(
      400,
      'TOPOLOGY_TOO_LARGE',
      `${field}: ${nodes} nodes, over the limit of ${TOPOLOGY_LIMITS.maxNodes}`,
    )
  return r.data
}

/** 404 `TOPOLOGY_NOT_FOUND`. */
export function topologyNotFound(id: string, version?: number): ApiError {
  return new ApiError(
    404,
    'TOPOLOGY_NOT_FOUND',
    version === undefined ? `no topology with id ${id}` : `topology ${id} has no version ${version}`,
  )
}

/** A save: the topology JSON as received (validated here) and an optional note. */
export interface SaveInput {
  topology: unknown
  message?: string | undefined
}

/** Versioned topologies: create, append versions, read any version, list, delete. */
export interface TopologyService {
  list(page: ListPageQuery): Promise<ListPage<TopologySummary>>
  /** A new topology at version 1, named by `topology.name`. */
  create(input: SaveInput): Promise<TopologyRecord>
  /** Appends version latest + 1 (the name follows the new `topology.name`). */
  saveVersion(id: string, input: SaveInput): Promise<TopologyRecord>
  /** A version as a record (the latest when absent). */
  get(id: string, version?: number): Promise<TopologyRecord>
  /**
   * The topology of a version (the latest when absent), for placing a run's workers.
   * @throws ApiError 404 `TOPOLOGY_NOT_FOUND`
   */
  getVersion(id: string, version?: number): Promise<{ topology: Topology; version: number }>
  /** Newest first. */
  versions(id: string): Promise<TopologyVersionSummary[]>
  remove(id: string): Promise<void>
}

function toRecord(v: StoredTopologyVersion): TopologyRecord {
  // Bodies were validated on write; versions are immutable.
  return { ...v, topology: v.body as Topology }
}

/** Creates the {@link TopologyService} over its repo. */
export function createTopologyService(repo: TopologyRepo): TopologyService {
  async function get(id: string, version?: number): Promise<TopologyRecord> {
    const v = await repo.get(id, version)
    if (!v) {
      // Tell "no such topology" from "no such version".
      if (version !== undefined && (await repo.get(id))) throw topologyNotFound(id, version)
      throw topologyNotFound(id)
    }
    return toRecord(v)
  }

  return {
    list: (page) => repo.list(page),

    async create(input) {
      const topology = checkTopology(input.topology)
      return toRecord(await repo.create(randomUUID(), topology.name, topology, input.message ?? null))
    },

    async saveVersion(id, input) {
      const topology = checkTopology(input.topology)
      const v = await repo.appendVersion(id, topology.name, topology, input.message ?? null)
      if (!v) throw topologyNotFound(id)
      return toRecord(v)
    },

    get,

    async getVersion(id, version) {
      const r = await get(id, version)
      return { topology: r.topology, version: r.version }
    },

    async versions(id) {
      const list = await repo.versions(id)
      if (!list) throw topologyNotFound(id)
      return list
    },

    async remove(id) {
      if (!(await repo.delete(id))) throw topologyNotFound(id)
    },
  }
}
