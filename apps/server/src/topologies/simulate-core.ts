import { DEFAULT_CHUNK_BYTES } from '@codebook/runtime/collectives'
import { createRng } from '@codebook/runtime/kmeans'
import {
  type BroadcastScheduleAlgorithm,
  broadcastPlan,
  buildClusterNetwork,
  clusterFromTopology,
  DEFAULT_MAP_GFLOPS_PER_SLOT,
  predictKmeansIteration,
  simulateBroadcast,
} from '@codebook/runtime/netsim'
import { chainOrder } from '@codebook/runtime/topology'
import {
  type SimulateBroadcastRequest,
  type SimulatedBroadcast,
  type SimulatedBroadcastRow,
  type SimulateKmeansResult,
  type Topology,
  topologyNodes,
} from '@codebook/shared'
import { ApiError } from '../http/api-error.ts'

/** What `simulate/broadcast` compares when the request names no algorithm (the CLI's default). */
export const DEFAULT_SIMULATED_BROADCASTS: readonly SimulatedBroadcast[] = [
  'simple',
  'mst',
  'bucket',
  'chain',
  'chain-random',
]

/**
 * Scheduled messages one request may simulate in all. The flow simulator's cost grows with the
 * messages and with how many run at once: measured here (2 cores), 1 GB over 1,000 nodes with
 * 512 KiB chunks is 1.9 M messages and takes 14 s as a chain, 27 s as bucket, over 5 min as mst.
 * The time limit of the simulation process is the second guard.
 */
export const MAX_SIMULATED_MESSAGES = 4_000_000

/**
 * Largest p for the all-to-all regroup (`three-stage`, `direct` aggregation): its p² flows all start at
 * once, and the flow simulator's cost grows with the flows in flight. Measured here: one K-means
 * iteration over 250 nodes in 1.9 s, 400 nodes in 20 s, 1,000 nodes over 2 min. The ring modes
 * (`ring`, `allreduce`) keep p flows in flight and are not limited beyond the messages.
 */
export const MAX_ALL_TO_ALL_NODES = 400

/** Messages the broadcast schedule of `algorithm` has for p nodes (each chunk is one message). */
export function broadcastMessages(
  algorithm: BroadcastScheduleAlgorithm,
  p: number,
  bytes: number,
  chunkBytes: number,
): number {
  if (p <= 1) return 0
  if (algorithm === 'bucket') {
    // p − 1 scattered blocks and (p − 1)² ring steps, each block of ⌈bytes/p⌉ cut into chunks.
    const perBlock = Math.max(1, Math.ceil(Math.ceil(bytes / p) / chunkBytes))
    return (p - 1) * p * perBlock
  }
  return (p - 1) * Math.max(1, Math.ceil(bytes / chunkBytes))
}

/** 400 `SIM_TOO_LARGE` when `messages` exceeds {@link MAX_SIMULATED_MESSAGES}. */
export function checkMessages(messages: number, what: string): void {
  if (messages > MAX_SIMULATED_MESSAGES)
    throw new ApiError(
      400,
      'SIM_TOO_LARGE',
      `${what} needs ${messages.toExponential(2)} simulated messages, over the limit of ${MAX_SIMULATED_MESSAGES.toExponential(1)}: use fewer nodes, fewer bytes or a larger chunkBytes`,
    )
}

function nodeCount(topology: Topology): number {
  return topologyNodes(topology).length
}

/**
 * Checks a broadcast request against the limits before anything is simulated: node counts within
 * the topology (400 `SIM_TOO_MANY_NODES`), and the
 * total of scheduled messages (400 `SIM_TOO_LARGE`).
 */
export function checkBroadcastRequest(topology: Topology, r: SimulateBroadcastRequest): void {
  const total = nodeCount(topology)
  const counts = r.nodes ?? [total]
  for (const p of counts)
    if (p > total)
      throw new ApiError(
        400,
        'SIM_TOO_MANY_NODES',
        `nodes: asked for ${p} nodes; the topology "${topology.name}" has ${total}`,
      )
  const chunk = r.chunkBytes ?? DEFAULT_CHUNK_BYTES
  let messages = 0
  for (const p of counts)
    for (const name of r.algorithms ?? DEFAULT_SIMULATED_BROADCASTS)
      messages += broadcastMessages(broadcastPlan(name).algorithm, p, r.bytes, chunk)
  checkMessages(messages, 'this broadcast comparison')
}

/**
 * Predicted broadcast times, as `codebook simulate broadcast` computes them: for each node count
 * (the first N nodes of the topology) and each algorithm, its schedule played on the flow-level
 * simulator from node 0.
 */
export function simulateBroadcasts(topology: Topology, r: SimulateBroadcastRequest): SimulatedBroadcastRow[] {
  const counts = r.nodes ?? [nodeCount(topology)]
  const chunk = r.chunkBytes ?? DEFAULT_CHUNK_BYTES
  const startup = (r.startupUs ?? 0) * 1e-6
  const rows: SimulatedBroadcastRow[] = []
  for (const nodes of counts) {
    const { spec, racks } = clusterFromTopology(topology, nodes)
    const network = buildClusterNetwork(spec)
    for (const name of r.algorithms ?? DEFAULT_SIMULATED_BROADCASTS) {
      const { algorithm, order } = broadcastPlan(name)
      const members = chainOrder(order, racks, 0, createRng(r.seed ?? 1))
      const p = simulateBroadcast(network, algorithm, members, r.bytes, chunk, startup)
      rows.push({
        algorithm: name,
        nodes,
        bytes: r.bytes,
        seconds: p.seconds,
        crossRackBytes: p.crossRackBytes,
      })
    }
  }
  return rows
}

/** A K-means what-if with n and d known (a dataset id already resolved). */
export interface KmeansWhatIf {
  n: number
  d: number
  k: number
  nodes?: number | undefined
  slots?: number | undefined
  broadcast?: SimulatedBroadcast | undefined
  aggregation?: SimulateKmeansResult['aggregation'] | undefined
  mapGflopsPerSlot?: number | undefined
  chunkBytes?: number | undefined
  startupUs?: number | undefined
  seed?: number | undefined
}

/**
 * Checks a K-means what-if before it is simulated: nodes within the topology, and the messages
 * of the centroid broadcast (k·d·4 bytes) plus the ≈ p² block messages of regroup and combine.
 */
export function checkKmeansRequest(topology: Topology, w: KmeansWhatIf): void {
  const total = nodeCount(topology)
  const p = w.nodes ?? total
  if (p > total)
    throw new ApiError(
      400,
      'SIM_TOO_MANY_NODES',
      `nodes: asked for ${p} nodes; the topology "${topology.name}" has ${total}`,
    )
  const aggregation = w.aggregation ?? 'three-stage'
  if ((aggregation === 'three-stage' || aggregation === 'direct') && p > MAX_ALL_TO_ALL_NODES)
    throw new ApiError(
      400,
      'SIM_TOO_LARGE',
      `the ${aggregation} regroup over ${p} nodes is an all-to-all of ${p * p} simultaneous flows; the simulator takes up to ${MAX_ALL_TO_ALL_NODES} nodes for it: use aggregation ring or allreduce, or fewer nodes`,
    )
  const { algorithm } = broadcastPlan(w.broadcast ?? 'chain')
  const bcast = broadcastMessages(algorithm, p, w.k * w.d * 4, w.chunkBytes ?? DEFAULT_CHUNK_BYTES)
  checkMessages(bcast + 2 * p * p, 'this K-means iteration')
}

/** One K-means iteration predicted stage by stage (`predictKmeansIteration`, as `codebook simulate kmeans`). */
export function simulateKmeans(topology: Topology, w: KmeansWhatIf): SimulateKmeansResult {
  const broadcast = w.broadcast ?? 'chain'
  const aggregation = w.aggregation ?? 'three-stage'
  const mapGflopsPerSlot = w.mapGflopsPerSlot ?? DEFAULT_MAP_GFLOPS_PER_SLOT
  const { algorithm, order } = broadcastPlan(broadcast)
  const r = predictKmeansIteration(topology, {
    n: w.n,
    d: w.d,
    k: w.k,
    ...(w.nodes !== undefined ? { nodes: w.nodes } : {}),
    ...(w.slots !== undefined ? { slots: w.slots } : {}),
    broadcast: algorithm,
    order,
    aggregation,
    mapGflopsPerSlot,
    chunkBytes: w.chunkBytes ?? DEFAULT_CHUNK_BYTES,
    startup: (w.startupUs ?? 0) * 1e-6,
    seed: w.seed ?? 1,
  })
  return {
    nodes: r.nodes,
    n: w.n,
    d: w.d,
    k: w.k,
    slots: r.slots,
    broadcast,
    aggregation,
    mapGflopsPerSlot,
    stages: r.stages,
    seconds: r.seconds,
  }
}
