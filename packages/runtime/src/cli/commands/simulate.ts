import type { Command } from 'commander'
import type { BroadcastScheduleAlgorithm } from '../../collectives/schedules/broadcast-schedule.ts'
import { createRng } from '../../random/rng.ts'
import { buildClusterNetwork } from '../../simulator/cluster-network.ts'
import { simulateBroadcast } from '../../simulator/simulate-broadcast.ts'
import { clusterFromTopology } from '../../simulator/topology-cluster.ts'
import { chainOrder } from '../../topology/chain-order.ts'
import { readTopology } from '../../topology/load-topology.ts'
import { DEFAULT_CHUNK_BYTES } from '../../transport/data-plane.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { byteSize, intList, listOf, nonNegativeInt, nonNegativeNumber } from './parse-options.ts'

/** What `codebook simulate broadcast` can compare: the algorithms, plus a chain in random order. */
export const simulatedBroadcasts = ['simple', 'mst', 'bucket', 'chain', 'chain-rank', 'chain-random'] as const
export type SimulatedBroadcast = (typeof simulatedBroadcasts)[number]

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
  json?: boolean
}

/** One simulated broadcast. */
export interface SimulatedBroadcastRow {
  algorithm: SimulatedBroadcast
  nodes: number
  bytes: number
  seconds: number
  crossRackBytes: number
}

/** The schedule algorithm and chain order behind each name. */
function plan(name: SimulatedBroadcast): {
  algorithm: BroadcastScheduleAlgorithm
  order: 'rank' | 'topology' | 'random'
} {
  if (name === 'chain') return { algorithm: 'chain', order: 'topology' }
  if (name === 'chain-rank') return { algorithm: 'chain', order: 'rank' }
  if (name === 'chain-random') return { algorithm: 'chain', order: 'random' }
  return { algorithm: name, order: 'rank' }
}

/**
 * Predicts broadcast times on a topology with the flow-level simulator: for each node count
 * and algorithm, the algorithm's schedule over the first N nodes of the topology, root = node 0.
 */
export async function runSimulateBroadcast(
  o: SimulateBroadcastOptions,
  io: CommandIo = processIo(),
): Promise<SimulatedBroadcastRow[]> {
  const topology = await readTopology(o.topology)
  const counts = o.nodes ?? [clusterFromTopology(topology).spec.nodes.length]
  const rows: SimulatedBroadcastRow[] = []
  for (const nodes of counts) {
    const { spec, racks } = clusterFromTopology(topology, nodes)
    const network = buildClusterNetwork(spec)
    for (const name of o.algorithms) {
      const { algorithm, order } = plan(name)
      const members = chainOrder(order, racks, 0, createRng(o.seed))
      const r = simulateBroadcast(network, algorithm, members, o.bytes, o.chunkBytes, o.startup)
      const row = {
        algorithm: name,
        nodes,
        bytes: o.bytes,
        seconds: r.seconds,
        crossRackBytes: r.crossRackBytes,
      }
      rows.push(row)
      io.stdout.write(
        o.json
          ? `${JSON.stringify(row)}\n`
          : `${name.padEnd(13)} nodes ${String(nodes).padStart(5)}  ${r.seconds.toFixed(3).padStart(10)} s  cross-rack ${(r.crossRackBytes / 1e6).toFixed(1)} MB\n`,
      )
    }
  }
  return rows
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
    .option('--json', 'one JSON object per result')
    .action(async (opts) => {
      await runSimulateBroadcast({ ...opts, startup: opts.startupUs * 1e-6 })
    })
}
