import { runCollectiveOn } from '../collectives/collective-app.ts'
import { broadcastPlan, broadcastSchedule } from '../collectives/schedules/broadcast-schedule.ts'
import { UsageError } from '../errors.ts'
import { WorkerPool } from '../framework/worker-pool.ts'
import { median } from '../median.ts'
import { createRng } from '../random/rng.ts'
import { buildClusterNetwork } from '../simulator/cluster-network.ts'
import { labClusterSpec } from '../simulator/lab-cluster.ts'
import { playSchedule } from '../simulator/play-schedule.ts'
import { chainOrder } from '../topology/chain-order.ts'
import { labDown, labUp } from './lab-net.ts'
import type { LabSpec } from './lab-plan.ts'
import { spawnInLab } from './lab-workers.ts'
import { type MpiPeer, startMpiPeer } from './mpi-peer.ts'

/** What `codebook lab bench broadcast` compares: the runtime's algorithms, and a chain in random order. */
export const labBroadcasts = ['simple', 'mst', 'bucket', 'chain', 'chain-random'] as const
export type LabBroadcast = (typeof labBroadcasts)[number]

/** Peers timed beside the runtime's broadcasts on the same hosts: `mpi` is Open MPI's MPI_Bcast (`native/mpi-bcast.c`). */
export const labBroadcastPeers = ['mpi'] as const
export type LabBroadcastPeer = (typeof labBroadcastPeers)[number]

/** Options of {@link runLabBenchBroadcast}. */
export interface LabBenchOptions {
  lab: LabSpec
  bytes: number
  /** Host counts: the first N lab hosts, rack by rack. */
  hosts: number[]
  algorithms: LabBroadcast[]
  repeat: number
  chunkBytes: number
  /** Seed of the random chain order. */
  seed: number
  /** Peers timed after the algorithms at each host count (none by default). */
  peers?: LabBroadcastPeer[]
}

/** One measured point, beside the simulator's prediction for the same lab. */
export interface LabBenchRow {
  algorithm: LabBroadcast | LabBroadcastPeer
  hosts: number
  bytes: number
  /** Median over repeats of the slowest host's time. */
  seconds: number
  /** The simulator's prediction; null for a peer (its algorithm is its library's). */
  simulatedSeconds: number | null
}

/** The simulator's prediction for one point: the algorithm's schedule over the lab's model. */
export function predictLabBroadcast(
  lab: LabSpec,
  name: LabBroadcast,
  hosts: number,
  bytes: number,
  chunkBytes: number,
  seed: number,
): number {
  const network = buildClusterNetwork(labClusterSpec(lab, hosts))
  const racks = Array.from({ length: hosts }, (_, i) => `rack-${Math.floor(i / lab.hostsPerRack)}`)
  const { algorithm, order } = broadcastPlan(name)
  // The same order the workers compute (collective-app.ts): same racks, same seeded rng.
  const members = chainOrder(order, racks, 0, createRng(seed))
  return playSchedule(network, broadcastSchedule(algorithm, members, bytes, chunkBytes)).seconds
}

/**
 * Brings up lab `o.lab`, starts one worker per host inside its namespace, and for each host
 * count and algorithm times the real broadcast (a warm-up, then the median of `repeat` runs of
 * the slowest host), calling `onRow` with the measurement and the simulator's prediction; then
 * each peer (`mpi`: MPI_Bcast over the same hosts) the same way. The lab is torn down at the
 * end, also on failure.
 */
export async function runLabBenchBroadcast(
  o: LabBenchOptions,
  onRow: (row: LabBenchRow) => void = () => {},
): Promise<LabBenchRow[]> {
  const total = o.lab.racks * o.lab.hostsPerRack
  const most = Math.max(...o.hosts)
  if (most > total)
    throw new UsageError('LAB_TOO_MANY_HOSTS', `--hosts asks for ${most} hosts; the lab has ${total}`)
  const lab = await labUp(o.lab)
  const rows: LabBenchRow[] = []
  let pool: WorkerPool | null = null
  let mpi: MpiPeer | null = null
  try {
    if (o.peers?.includes('mpi')) mpi = await startMpiPeer(lab.hosts)
    const hosts = lab.hosts.slice(0, most)
    pool = await WorkerPool.start({
      workers: most,
      spawn: spawnInLab(hosts),
      racks: hosts.map((h) => h.rack),
      host: lab.driverAddress,
      chunkBytes: o.chunkBytes,
      registerTimeoutMs: 30_000,
    })
    for (const p of o.hosts)
      for (const name of o.algorithms) {
        const { algorithm, order } = broadcastPlan(name)
        const spec = {
          op: 'broadcast' as const,
          ranks: Array.from({ length: p }, (_, i) => i),
          bytes: o.bytes,
          sync: true,
          algorithm,
          chainOrder: order,
          seed: o.seed,
          timeoutMs: 600_000,
        }
        await runCollectiveOn(pool, spec)
        const times: number[] = []
        for (let r = 0; r < o.repeat; r++) {
          const out = await runCollectiveOn(pool, spec)
          times.push(Math.max(...out.map((x) => x.ms)) / 1000)
        }
        const row: LabBenchRow = {
          algorithm: name,
          hosts: p,
          bytes: o.bytes,
          seconds: median(times),
          simulatedSeconds: predictLabBroadcast(o.lab, name, p, o.bytes, o.chunkBytes, o.seed),
        }
        rows.push(row)
        onRow(row)
      }
    for (const p of o.hosts)
      if (mpi) {
        const row: LabBenchRow = {
          algorithm: 'mpi',
          hosts: p,
          bytes: o.bytes,
          seconds: median(await mpi.time(p, o.bytes, o.repeat)),
          simulatedSeconds: null,
        }
        rows.push(row)
        onRow(row)
      }
  } finally {
    await pool?.close()
    await mpi?.close()
    await labDown(o.lab.id)
  }
  return rows
}
