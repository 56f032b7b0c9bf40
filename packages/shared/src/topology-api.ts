import { z } from 'zod'
import { NextBefore } from './list-page.ts'
import { DisplayName } from './names.ts'
import { AggregationField, runAggregations } from './run-defaults.ts'
import { Topology } from './topology.ts'

/**
 * HTTP contract of the Topology area: versioned storage (`/api/topologies`), stateless format
 * conversions (`/api/topology-formats`) and what-if simulation (`/api/simulate`).
 *
 * A topology that fails the {@link Topology} schema is answered 400 `INVALID_TOPOLOGY`, its
 * message listing each issue as `path: message` (e.g. `sites.0.racks.1.nodes: rack 'r1' has no
 * nodes`), joined by `; `.
 */

/** Limits the server enforces (coded 400s beyond them), so one request cannot hang it. */
export const TOPOLOGY_LIMITS = {
  /** Nodes in one topology. */
  maxNodes: 10_000,
  /** Characters of an imported text (JSON, Hadoop rack map, Slurm topology.conf). */
  maxTextChars: 1_000_000,
  /** Characters of a save message. */
  maxMessageChars: 500,
  /** Bytes of one simulated broadcast. */
  maxBytes: 1e13,
  /** Node counts in one `simulate/broadcast` request. */
  maxNodeCounts: 20,
} as const

/** One stored topology in a list: counts instead of the whole tree. */
export const TopologySummary = z.object({
  id: z.string(),
  name: z.string(),
  latestVersion: z.number().int().positive(),
  sites: z.number().int().nonnegative(),
  racks: z.number().int().nonnegative(),
  nodes: z.number().int().nonnegative(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type TopologySummary = z.infer<typeof TopologySummary>

/** `GET /api/topologies?limit&before`: one page, newest updated first (see {@link ListPageQuery}). */
export const TopologyList = z.object({ topologies: z.array(TopologySummary), nextBefore: NextBefore })
export type TopologyList = z.infer<typeof TopologyList>

/**
 * Body of `POST /api/topologies` (create, version 1) and `POST /api/topologies/:id/versions`
 * (append version latest + 1). The stored name is `topology.name`.
 */
export const SaveTopology = z.object({
  topology: Topology,
  /** Note kept with the version ("moved node-7 to rack-2"). */
  message: z.string().max(TOPOLOGY_LIMITS.maxMessageChars).optional(),
})
export type SaveTopology = z.infer<typeof SaveTopology>

/** One version of a stored topology, as saved (versions are immutable). */
export const TopologyRecord = z.object({
  id: z.string(),
  name: z.string(),
  version: z.number().int().positive(),
  latestVersion: z.number().int().positive(),
  topology: Topology,
  message: z.string().nullable(),
  /** When this version was saved. */
  createdAt: z.string(),
})
export type TopologyRecord = z.infer<typeof TopologyRecord>

/** One entry of a topology's history. */
export const TopologyVersionSummary = z.object({
  version: z.number().int().positive(),
  message: z.string().nullable(),
  createdAt: z.string(),
})
export type TopologyVersionSummary = z.infer<typeof TopologyVersionSummary>

/** `GET /api/topologies/:id/versions`: newest version first. */
export const TopologyVersionList = z.object({ versions: z.array(TopologyVersionSummary) })
export type TopologyVersionList = z.infer<typeof TopologyVersionList>

/** Text formats a topology converts from and to (the runtime's `topologyFormats`). */
export const topologyTextFormats = ['json', 'hadoop', 'slurm'] as const
export const TopologyTextFormat = z.enum(topologyTextFormats)
export type TopologyTextFormat = z.infer<typeof TopologyTextFormat>

/**
 * `POST /api/topology-formats/parse`: text → topology. Hadoop rack maps and Slurm topology.conf
 * say nothing of slots and bandwidths: `slots`, `nicGbps`, `uplinkGbps` fill them in (defaults 1,
 * 1, 10); `name` names the result (JSON keeps its own). Bad text → 400 with the runtime's code
 * (`TOPOLOGY_PARSE`, `SLURM_…`, `HADOOP_…`) and the line in the message.
 */
export const ParseTopologyRequest = z.object({
  format: TopologyTextFormat,
  text: z.string().max(TOPOLOGY_LIMITS.maxTextChars),
  name: DisplayName.optional(),
  slots: z.number().int().positive().optional(),
  nicGbps: z.number().positive().optional(),
  uplinkGbps: z.number().positive().optional(),
})
export type ParseTopologyRequest = z.infer<typeof ParseTopologyRequest>

export const ParseTopologyResult = z.object({ topology: Topology })
export type ParseTopologyResult = z.infer<typeof ParseTopologyResult>

/** `POST /api/topology-formats/render`: topology → text (Hadoop and Slurm keep only names and structure). */
export const RenderTopologyRequest = z.object({ format: TopologyTextFormat, topology: Topology })
export type RenderTopologyRequest = z.infer<typeof RenderTopologyRequest>

export const RenderTopologyResult = z.object({ text: z.string() })
export type RenderTopologyResult = z.infer<typeof RenderTopologyResult>

/**
 * Broadcasts the simulator compares (as `codebook simulate broadcast`): the four algorithms
 * (members in rank order; `chain` in rack-contiguous topology order), plus the chain in rank
 * order and in a seeded random order.
 */
export const simulatedBroadcasts = ['simple', 'mst', 'bucket', 'chain', 'chain-rank', 'chain-random'] as const
export const SimulatedBroadcast = z.enum(simulatedBroadcasts)
export type SimulatedBroadcast = z.infer<typeof SimulatedBroadcast>

/** Regroup aggregation modes (the runtime's `aggregationModes`). */
export const simulatedAggregations = runAggregations
/** `local`, the old name of `three-stage`, is read as it. */
export const SimulatedAggregation = AggregationField
export type SimulatedAggregation = (typeof simulatedAggregations)[number]

/** Simulator knobs shared by both requests (defaults as the CLI's). */
const simulatorKnobs = {
  /** Pipeline chunk, bytes (default 512 KiB, the transport's). */
  chunkBytes: z.number().int().positive().optional(),
  /** Per-message software cost α, µs (default 0). */
  startupUs: z.number().nonnegative().optional(),
  /** Seed of the random chain order (default 1). */
  seed: z.number().int().nonnegative().optional(),
}

/**
 * `POST /api/simulate/broadcast`: predicted broadcast times on `topology`, root = node 0, for
 * each node count in `nodes` (the first N nodes; all nodes when absent) and each algorithm
 * (default simple, mst, bucket, chain, chain-random). Too many simulated messages → 400
 * `SIM_TOO_LARGE` (raise chunkBytes or lower bytes/nodes).
 */
export const SimulateBroadcastRequest = z.object({
  topology: Topology,
  bytes: z.number().int().positive().max(TOPOLOGY_LIMITS.maxBytes),
  algorithms: z.array(SimulatedBroadcast).min(1).optional(),
  nodes: z.array(z.number().int().positive()).min(1).max(TOPOLOGY_LIMITS.maxNodeCounts).optional(),
  ...simulatorKnobs,
})
export type SimulateBroadcastRequest = z.infer<typeof SimulateBroadcastRequest>

/** One simulated broadcast. */
export const SimulatedBroadcastRow = z.object({
  algorithm: SimulatedBroadcast,
  nodes: z.number().int().positive(),
  bytes: z.number(),
  seconds: z.number(),
  /** Bytes that crossed a rack uplink. */
  crossRackBytes: z.number(),
})
export type SimulatedBroadcastRow = z.infer<typeof SimulatedBroadcastRow>

/** Rows in request order: node count by node count, algorithm by algorithm. */
export const SimulateBroadcastResult = z.object({ results: z.array(SimulatedBroadcastRow) })
export type SimulateBroadcastResult = z.infer<typeof SimulateBroadcastResult>

/**
 * `POST /api/simulate/kmeans`: predicted per-stage seconds of one K-means iteration. Give either
 * `n` and `d`, or `datasetId` (a ready dataset; its n and d are used). Defaults: broadcast
 * `chain`, aggregation `three-stage`, each node's own slots, all nodes, 100 GFLOP/s per slot.
 */
export const SimulateKmeansRequest = z.object({
  topology: Topology,
  n: z.number().int().positive().optional(),
  d: z.number().int().positive().optional(),
  datasetId: z.string().optional(),
  k: z.number().int().positive(),
  nodes: z.number().int().positive().optional(),
  slots: z.number().int().positive().optional(),
  broadcast: SimulatedBroadcast.optional(),
  aggregation: SimulatedAggregation.optional(),
  mapGflopsPerSlot: z.number().positive().optional(),
  ...simulatorKnobs,
})
export type SimulateKmeansRequest = z.infer<typeof SimulateKmeansRequest>

/** One predicted stage: time, and for communication stages the traffic. */
export const SimulatedStage = z.object({
  seconds: z.number(),
  bytes: z.number(),
  crossRackBytes: z.number(),
  messages: z.number().int(),
})
export type SimulatedStage = z.infer<typeof SimulatedStage>

/** The stages of one iteration as the simulator predicts them (run one after another). */
export const simulatedKmeansStages = ['broadcast', 'map', 'regroup', 'combine'] as const

export const SimulateKmeansResult = z.object({
  nodes: z.number().int().positive(),
  n: z.number().int().positive(),
  d: z.number().int().positive(),
  k: z.number().int().positive(),
  /** Map slots of each node. */
  slots: z.array(z.number().int()),
  broadcast: SimulatedBroadcast,
  // The plain enum: a response is encoded through its schema, and the alias transform is one-way.
  aggregation: z.enum(simulatedAggregations),
  mapGflopsPerSlot: z.number(),
  stages: z.object({
    broadcast: SimulatedStage,
    map: SimulatedStage,
    regroup: SimulatedStage,
    combine: SimulatedStage,
  }),
  /** Sum of the stages. */
  seconds: z.number(),
})
export type SimulateKmeansResult = z.infer<typeof SimulateKmeansResult>
