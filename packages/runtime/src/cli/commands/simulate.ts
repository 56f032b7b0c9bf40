import {
  type RunEncoding,
  runEncodings,
  type SimulatedBroadcast,
  simulatedBroadcasts,
} from '@codebook/shared'
import type { Command } from 'commander'
import {
  type AggregationMode,
  aggregationModes,
  parseAggregation,
} from '../../collectives/regroup/regroup.ts'
import { broadcastPlan } from '../../collectives/schedules/broadcast-schedule.ts'
import { createRng } from '../../random/rng.ts'
import { buildClusterNetwork } from '../../simulator/cluster-network.ts'
import {
  DEFAULT_MAP_GFLOPS_PER_SLOT,
  type KmeansCombine,
  type KmeansStagePrediction,
  kmeansCombines,
  kmeansStages,
  predictKmeansIteration,
} from '../../simulator/predict-kmeans.ts'
import { simulateBroadcast } from '../../simulator/simulate-broadcast.ts'
import { clusterFromTopology } from '../../simulator/topology-cluster.ts'
import { chainOrder } from '../../topology/chain-order.ts'
import { readTopology } from '../../topology/load-topology.ts'
import { DEFAULT_CHUNK_BYTES } from '../../transport/data-plane.ts'
import { type CommandIo, processIo } from '../progress.ts'
import {
  byteSize,
  byteSizeList,
  intList,
  listOf,
  nonNegativeInt,
  nonNegativeNumber,
  oneOf,
  positiveInt,
  positiveNumber,
} from './parse-options.ts'

/** What `codebook simulate broadcast` can compare: the algorithms, plus a chain in random order. */
export { type SimulatedBroadcast, simulatedBroadcasts }

/** Options of `codebook simulate broadcast`. */
export interface SimulateBroadcastOptions {
  topology: string
  bytes: number
  algorithms: SimulatedBroadcast[]
  /** Node counts to simulate (the first N nodes of the topology); all nodes when absent. */
  nodes?: number[]
  chunkBytes: number
  /** Per-message software cost α, seconds. */
  startup: number
  seed: number
  /**
   * Socket buffer sizes to sweep, bytes: each connection keeps at most that many bytes in flight
   * (its TCP window), so it moves at most buffer ÷ RTT. Unlimited when absent.
   */
  socketBuffers?: number[]
  /** Round trip a path adds to twice its one-way latency (stacks, switches), seconds. */
  baseRtt?: number
  json?: boolean
}

/** One simulated broadcast. */
export interface SimulatedBroadcastRow {
  algorithm: SimulatedBroadcast
  nodes: number
  bytes: number
  seconds: number
  crossRackBytes: number
  /** The socket buffer (the window) of this row, bytes; absent = unlimited. */
  socketBuffer?: number
}

/**
 * Predicts broadcast times on a topology with the flow-level simulator: for each node count,
 * socket buffer and algorithm, the algorithm's schedule over the first N nodes of the topology,
 * root = node 0.
 */
export async function runSimulateBroadcast(
  o: SimulateBroadcastOptions,
  io: CommandIo = processIo(),
): Promise<SimulatedBroadcastRow[]> {
  const topology = await readTopology(o.topology)
  const counts = o.nodes ?? [clusterFromTopology(topology).spec.nodes.length]
  const rows: SimulatedBroadcastRow[] = []
  const buffers: Array<number | undefined> = o.socketBuffers ?? [undefined]
  for (const nodes of counts) {
    const { spec, racks } = clusterFromTopology(topology, nodes)
    for (const socketBuffer of buffers) {
      // The window a connection opens is its socket buffer (Table 9's reading: sender and receiver alike).
      const network = buildClusterNetwork({
        ...spec,
        ...(socketBuffer === undefined ? {} : { tcpWindowBytes: socketBuffer }),
        ...(o.baseRtt === undefined ? {} : { baseRtt: o.baseRtt }),
      })
      for (const name of o.algorithms) {
        const { algorithm, order } = broadcastPlan(name)
        const members = chainOrder(order, racks, 0, createRng(o.seed))
        const r = simulateBroadcast(network, algorithm, members, o.bytes, o.chunkBytes, o.startup)
        const row: SimulatedBroadcastRow = {
          algorithm: name,
          nodes,
          bytes: o.bytes,
          seconds: r.seconds,
          crossRackBytes: r.crossRackBytes,
          ...(socketBuffer === undefined ? {} : { socketBuffer }),
        }
        rows.push(row)
        const buffer =
          socketBuffer === undefined ? '' : `  buffer ${String(socketBuffer / 1024).padStart(6)} KiB`
        io.stdout.write(
          o.json
            ? `${JSON.stringify(row)}\n`
            : `${name.padEnd(13)} nodes ${String(nodes).padStart(5)}${buffer}  ${r.seconds.toFixed(3).padStart(10)} s  cross-rack ${(r.crossRackBytes / 1e6).toFixed(1)} MB\n`,
        )
      }
    }
  }
  return rows
}

/** Options of `codebook simulate kmeans`. */
export interface SimulateKmeansOptions {
  topology: string
  n: number
  d: number
  k: number
  /** Map slots per node (each node's own when absent). */
  slots?: number
  /** Use the first `nodes` nodes of the topology (all when absent). */
  nodes?: number
  broadcast: SimulatedBroadcast
  aggregation: AggregationMode
  mapGflops: number
  chunkBytes: number
  /** Per-message software cost α, seconds. */
  startup: number
  seed: number
  /** Centroid encoding on the wire (the broadcast's, and the combine's with `combine: 'centroids'`). */
  encoding?: RunEncoding
  /** What the combine gathers (partial sums by default). */
  combine?: KmeansCombine
  json?: boolean
}

/** What `codebook simulate kmeans --json` prints: the inputs, then per-stage and total predictions. */
export interface SimulatedKmeansIteration {
  topology: string
  nodes: number
  n: number
  d: number
  k: number
  slots: number[]
  broadcast: SimulatedBroadcast
  aggregation: AggregationMode
  mapGflopsPerSlot: number
  stages: Record<(typeof kmeansStages)[number], KmeansStagePrediction>
  seconds: number
}

/**
 * Predicts one K-means iteration on a topology, stage by stage: the broadcast and regroup
 * schedules played on the flow-level simulator, the map term from flops and slots
 * (`predictKmeansIteration`). Prints a table, or one JSON object with `--json`.
 */
export async function runSimulateKmeans(
  o: SimulateKmeansOptions,
  io: CommandIo = processIo(),
): Promise<SimulatedKmeansIteration> {
  const topology = await readTopology(o.topology)
  const { algorithm, order } = broadcastPlan(o.broadcast)
  const r = predictKmeansIteration(topology, {
    n: o.n,
    d: o.d,
    k: o.k,
    ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
    ...(o.slots !== undefined ? { slots: o.slots } : {}),
    broadcast: algorithm,
    order,
    aggregation: o.aggregation,
    mapGflopsPerSlot: o.mapGflops,
    chunkBytes: o.chunkBytes,
    startup: o.startup,
    seed: o.seed,
    encoding: o.encoding ?? 'float32',
    combine: o.combine ?? 'partials',
  })
  const out: SimulatedKmeansIteration = {
    topology: topology.name,
    nodes: r.nodes,
    n: o.n,
    d: o.d,
    k: o.k,
    slots: r.slots,
    broadcast: o.broadcast,
    aggregation: o.aggregation,
    mapGflopsPerSlot: o.mapGflops,
    stages: r.stages,
    seconds: r.seconds,
  }
  if (o.json) {
    io.stdout.write(`${JSON.stringify(out)}\n`)
    return out
  }
  const mb = (b: number) => (b / 1e6).toFixed(1).padStart(12)
  const lines = [
    `topology ${topology.name}: ${r.nodes} nodes; n ${o.n}, d ${o.d}, k ${o.k}; broadcast ${o.broadcast}, aggregation ${o.aggregation}, ${o.mapGflops} GFLOP/s per slot`,
    `${'stage'.padEnd(10)} ${'seconds'.padStart(12)} ${'MB sent'.padStart(12)} ${'cross-rack MB'.padStart(14)} ${'messages'.padStart(9)}`,
    ...kmeansStages.map((s) => {
      const st = r.stages[s]
      return `${s.padEnd(10)} ${st.seconds.toFixed(4).padStart(12)} ${mb(st.bytes)} ${mb(st.crossRackBytes).padStart(14)} ${String(st.messages).padStart(9)}`
    }),
    `${'total'.padEnd(10)} ${r.seconds.toFixed(4).padStart(12)}`,
  ]
  io.stdout.write(`${lines.join('\n')}\n`)
  return out
}

/** Registers `codebook simulate …`. */
export function registerSimulate(program: Command): void {
  const simulate = program
    .command('simulate')
    .description('Predict collective times on a topology with the flow-level simulator')
  simulate
    .command('broadcast')
    .description('Simulated broadcast time per algorithm and node count, on the first N nodes of a topology')
    .requiredOption('--topology <file>', 'topology JSON (codebook topology generate)')
    .requiredOption(
      '--bytes <size>',
      'message size, e.g. 1000000000 or 64MB (binary units)',
      byteSize('--bytes'),
    )
    .option(
      '--algorithms <list>',
      `comma-separated: ${simulatedBroadcasts.join(', ')}`,
      listOf('--algorithms', simulatedBroadcasts),
      ['simple', 'mst', 'bucket', 'chain', 'chain-random'],
    )
    .option(
      '--nodes <list>',
      'node counts, e.g. 25,50,75 (the first N nodes of the topology)',
      intList('--nodes'),
    )
    .option('--chunk-bytes <size>', 'pipeline chunk size', byteSize('--chunk-bytes'), DEFAULT_CHUNK_BYTES)
    .option('--startup-us <us>', 'per-message software cost α in µs', nonNegativeNumber('--startup-us'), 0)
    .option('--seed <n>', 'seed of the random chain order', nonNegativeInt('--seed'), 1)
    .option(
      '--socket-buffer <sizes>',
      'socket buffer sizes to sweep, e.g. 8K,64K,1M: a connection moves at most buffer ÷ round trip (default: unlimited)',
      byteSizeList('--socket-buffer'),
    )
    .option(
      '--base-rtt-us <us>',
      'round trip a path adds to twice its one-way latency (stacks, switches), µs',
      nonNegativeNumber('--base-rtt-us'),
    )
    .option('--json', 'one JSON object per result')
    .action(async (opts) => {
      const { socketBuffer, baseRttUs, startupUs, ...rest } = opts
      await runSimulateBroadcast({
        ...rest,
        startup: startupUs * 1e-6,
        ...(socketBuffer ? { socketBuffers: socketBuffer } : {}),
        ...(baseRttUs === undefined ? {} : { baseRtt: baseRttUs * 1e-6 }),
      })
    })
  simulate
    .command('kmeans')
    .description(
      'Predicted per-stage time of one K-means iteration on a topology: broadcast and regroup played on the simulator, map from flops',
    )
    .requiredOption(
      '--topology <file>',
      'topology file: JSON, or by extension a Slurm .conf or Hadoop .txt/.map rack map',
    )
    .requiredOption('--n <N>', 'vectors', positiveInt('--n'))
    .requiredOption('--d <D>', 'dimensions', positiveInt('--d'))
    .requiredOption('--k <K>', 'centroids', positiveInt('--k'))
    .option('--slots <S>', "map slots per node (default: each node's slots)", positiveInt('--slots'))
    .option('--nodes <P>', 'use the first P nodes of the topology (default: all)', positiveInt('--nodes'))
    .option(
      '--broadcast <name>',
      `centroid broadcast: ${simulatedBroadcasts.join(', ')}`,
      oneOf('--broadcast', simulatedBroadcasts),
      'chain',
    )
    .option(
      '--aggregation <mode>',
      `regroup aggregation: ${aggregationModes.join(', ')} (the old name local = three-stage)`,
      parseAggregation,
      'three-stage',
    )
    .option(
      '--map-gflops <G>',
      `map throughput per slot, GFLOP/s (default ${DEFAULT_MAP_GFLOPS_PER_SLOT}: the ONNX kernel as measured; ≈ 1 for the TypeScript reference)`,
      positiveNumber('--map-gflops'),
      DEFAULT_MAP_GFLOPS_PER_SLOT,
    )
    .option(
      '--chunk-bytes <size>',
      'broadcast pipeline chunk size',
      byteSize('--chunk-bytes'),
      DEFAULT_CHUNK_BYTES,
    )
    .option('--startup-us <us>', 'per-message software cost α in µs', nonNegativeNumber('--startup-us'), 0)
    .option('--seed <n>', 'seed of a random chain order', nonNegativeInt('--seed'), 1)
    .option(
      '--encoding <type>',
      `centroids on the wire: ${runEncodings.join(', ')} (uint8: the papers' byte centroids)`,
      oneOf('--encoding', runEncodings),
      'float32',
    )
    .option(
      '--combine <what>',
      "what the combine gathers at the root: partials (float64 sums, Codebook's root update) or centroids (updated blocks in --encoding, as the papers' reducers send them)",
      oneOf('--combine', kmeansCombines),
      'partials',
    )
    .option('--json', 'one JSON object')
    .action(async (opts) => {
      await runSimulateKmeans({ ...opts, startup: opts.startupUs * 1e-6 })
    })
}
