import type { Topology } from '@codebook/shared'
import { topologyNodes } from '@codebook/shared'
import type { AggregationMode } from '../collectives/regroup/regroup.ts'
import {
  type BroadcastScheduleAlgorithm,
  broadcastSchedule,
} from '../collectives/schedules/broadcast-schedule.ts'
import {
  centroidBlocks,
  partialBlockBytes,
  regroupSchedule,
} from '../collectives/schedules/regroup-schedule.ts'
import { UsageError } from '../errors.ts'
import { type CentroidEncoding, encodedBytes } from '../kmeans/encoding/centroid-encoding.ts'
import { createRng } from '../random/rng.ts'
import { type ChainOrderKind, chainOrder } from '../topology/chain-order.ts'
import { buildClusterNetwork, type ClusterSpec } from './cluster-network.ts'
import { playSchedule, type SchedulePrediction } from './play-schedule.ts'
import { clusterFromTopology } from './topology-cluster.ts'

/**
 * Default map throughput per slot, GFLOP/s (2 flops per multiply-add of the distance GEMM).
 * From CONTEXT.md's measurement of the ONNX kernel: 100k × 512 × k = 1,000 assigned in ≈ 0.46 s
 * on 2 threads = 1.02·10¹¹ flops / 0.46 s ≈ 111 GFLOP/s per thread, rounded down. The
 * TypeScript reference kernel is ≈ 120× slower (pass ≈ 1 for it).
 */
export const DEFAULT_MAP_GFLOPS_PER_SLOT = 100

/** The stages of one K-means iteration (broadcast, map, shuffle, reduce, combine; docs/simulator.md), as the runtime reports them. */
export const kmeansStages = ['broadcast', 'map', 'regroup', 'combine'] as const
export type KmeansStage = (typeof kmeansStages)[number]

/** One predicted stage: time, and for communication stages the traffic. */
export type KmeansStagePrediction = SchedulePrediction

/** What to predict: the problem size and the algorithm choices. */
export interface KmeansIterationModel {
  /** Vectors, dimensions, centroids. */
  n: number
  d: number
  k: number
  /** Use the first `nodes` nodes of the topology (all when absent). */
  nodes?: number
  /** Map slots per node; each node's own `slots` when absent. */
  slots?: number
  broadcast: BroadcastScheduleAlgorithm
  /** Member order of the broadcast (racks contiguous by default). The rings run in rank order, as the runtime's do. */
  order?: ChainOrderKind
  aggregation: AggregationMode
  mapGflopsPerSlot?: number
  /** Broadcast pipeline chunk. */
  chunkBytes: number
  /** Per-message start-up α, seconds. */
  startup?: number
  /** Seed of a random order. */
  seed?: number
  /** The centroids' encoding on the wire (the broadcast's; default float32): `encodedBytes` of the runtime's. */
  encoding?: CentroidEncoding
  /**
   * What the combine gathers at node 0: `partials`, the reduced float64 sums (Codebook's root
   * updates the centroids; default), or `centroids`, each owner's updated block in the broadcast's
   * encoding (the papers' reducers update their blocks: 512 MB for 10⁶ × 512 bytes).
   */
  combine?: KmeansCombine
}

/** What a K-means combine gathers (see {@link KmeansIterationModel.combine}). */
export const kmeansCombines = ['partials', 'centroids'] as const
export type KmeansCombine = (typeof kmeansCombines)[number]

/** A predicted iteration: per-stage figures and their sum (stages run one after another). */
export interface KmeansIterationPrediction {
  nodes: number
  /** Slots of each node. */
  slots: number[]
  stages: Record<KmeansStage, KmeansStagePrediction>
  seconds: number
}

/**
 * Predicts one K-means iteration on a topology, each communication stage by playing its
 * schedule on the flow-level simulator:
 * - broadcast: the broadcast schedule of the k × d centroids in `encoding` (k·d·4 bytes as
 *   float32; {@link encodedBytes}) from node 0;
 * - map: (n/p)·k·d·2 flops per node over its slots (the slowest node sets the stage);
 * - regroup (shuffle + reduce): {@link regroupSchedule} of the dense partial blocks
 *   (k/p centroids × (d + 1) float64 per block);
 * - combine: the gather of the reduced blocks at node 0 (none for `allreduce`): their float64
 *   sums, or with `combine: 'centroids'` the updated blocks in the broadcast's encoding.
 * Stages are timed separately and added, as the runtime's stage barriers do. Not modelled:
 * reduce-side additions, partition loading, and sparse intermediate data (dense blocks are the
 * upper bound).
 */
export function predictKmeansIteration(
  topology: Topology,
  m: KmeansIterationModel,
): KmeansIterationPrediction {
  const { spec, racks } = clusterFromTopology(topology, m.nodes)
  const slots = topologyNodes(topology)
    .slice(0, spec.nodes.length)
    .map((u) => m.slots ?? u.node.slots)
  const order = chainOrder(m.order ?? 'topology', racks, 0, createRng(m.seed ?? 1))
  return predictKmeansOnCluster(spec, { ...m, slots, order })
}

/** What to predict on a cluster given as a spec: the broadcast order and each node's slots are explicit. */
export interface ClusterKmeansModel extends Omit<KmeansIterationModel, 'nodes' | 'slots' | 'order' | 'seed'> {
  /** Map slots of each node of the spec. */
  slots: number[]
  /** Member order of the broadcast (node indices, the root first); the rings run in node order. */
  order: number[]
}

/**
 * {@link predictKmeansIteration} on a cluster spec whose node i is rank i (e.g. a placed run:
 * node i sits where the mapping put rank i), with the same stages and schedules.
 */
export function predictKmeansOnCluster(spec: ClusterSpec, m: ClusterKmeansModel): KmeansIterationPrediction {
  for (const [key, v] of Object.entries({ n: m.n, d: m.d, k: m.k }))
    if (!Number.isInteger(v) || v < 1)
      throw new UsageError('BAD_OPTION', `${key} must be a positive integer, got ${v}`)
  const gflops = m.mapGflopsPerSlot ?? DEFAULT_MAP_GFLOPS_PER_SLOT
  if (!(gflops > 0))
    throw new UsageError('BAD_OPTION', `map GFLOP/s per slot must be positive, got ${gflops}`)
  const p = spec.nodes.length
  const slots = m.slots
  if (slots.length !== p) throw new UsageError('BAD_OPTION', `${slots.length} slot counts for ${p} nodes`)
  const network = buildClusterNetwork(spec)
  const startup = m.startup ?? 0

  const encoding = m.encoding ?? 'float32'
  const broadcast = playSchedule(
    network,
    broadcastSchedule(m.broadcast, m.order, encodedBytes(m.k, m.d, encoding), m.chunkBytes),
    startup,
  )

  const flopsPerNode = (m.n / p) * m.k * m.d * 2
  const mapSeconds = Math.max(...slots.map((s) => flopsPerNode / (s * gflops * 1e9)))
  const map = { seconds: mapSeconds, bytes: 0, crossRackBytes: 0, messages: 0 }

  const blocks = centroidBlocks(m.k, p)
  const ranks = Array.from({ length: p }, (_, i) => i)
  const schedules = regroupSchedule(
    m.aggregation,
    ranks,
    blocks.map((c) => partialBlockBytes(c, m.d)),
    slots,
  )
  const regroup = playSchedule(network, schedules.regroup, startup)
  // The papers' combine: each owner sends its updated block, encoded as the broadcast is.
  const gathered =
    m.combine === 'centroids'
      ? regroupSchedule(
          m.aggregation,
          ranks,
          blocks.map((c) => encodedBytes(c, m.d, encoding)),
          slots,
        ).combine
      : schedules.combine
  const combine = playSchedule(network, gathered, startup)

  const stages = { broadcast, map, regroup, combine }
  const seconds = kmeansStages.reduce((sum, s) => sum + stages[s].seconds, 0)
  return { nodes: p, slots, stages, seconds }
}
