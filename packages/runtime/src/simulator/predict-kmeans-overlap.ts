import type { ScheduledSend } from '../collectives/schedules/broadcast-schedule.ts'
import { broadcastSchedule } from '../collectives/schedules/broadcast-schedule.ts'
import {
  centroidBlocks,
  partialBlockBytes,
  regroupSchedule,
} from '../collectives/schedules/regroup-schedule.ts'
import { UsageError } from '../errors.ts'
import { buildClusterNetwork, type ClusterSpec } from './cluster-network.ts'
import { type SimTransfer, simulateTransfers } from './flow-network.ts'
import type { ClusterKmeansModel } from './predict-kmeans.ts'

/** The CPUs the workers share: `cores` cores, each running one map task at `gflopsPerCore`. */
export interface SharedCpu {
  cores: number
  gflopsPerCore: number
}

/**
 * One K-means iteration as the runtime runs it, without stage barriers: each worker maps as soon
 * as it holds the centroids (and has forwarded them), sends its partials as soon as its map is
 * done, and sends its reduced block to the root once its own regroup sends have left and every
 * block for it has arrived. The maps are flows over one shared CPU "link" of `cores` ×
 * `gflopsPerCore` (each capped at one core: processor sharing), so a worker computing overlaps
 * another's waiting on the network. Same schedules and network as
 * {@link predictKmeansOnCluster}; returns the makespan, seconds.
 */
export function predictOverlappedIteration(spec: ClusterSpec, m: ClusterKmeansModel, cpu: SharedCpu): number {
  if (!(cpu.cores > 0 && cpu.gflopsPerCore > 0))
    throw new UsageError(
      'BAD_OPTION',
      `cores and GFLOP/s per core must be positive, got ${cpu.cores}, ${cpu.gflopsPerCore}`,
    )
  const network = buildClusterNetwork(spec)
  const p = spec.nodes.length
  const cpuLink = network.links.length
  const links = [
    ...network.links,
    { name: 'cpu', bandwidth: cpu.cores * cpu.gflopsPerCore * 1e9, latency: 0 },
  ]
  const transfers: SimTransfer[] = []
  const add = (
    sends: readonly ScheduledSend[],
    extra: (s: ScheduledSend) => Pick<SimTransfer, 'after' | 'afterSent'>,
  ) => {
    const offset = transfers.length
    for (const s of sends) {
      const more = extra(s)
      transfers.push({
        path: network.path(s.from, s.to),
        bytes: s.bytes,
        after: [...s.after.map((a) => a + offset), ...(more.after ?? [])],
        afterSent: [...(s.afterSent ?? []).map((a) => a + offset), ...(more.afterSent ?? [])],
        maxRate: network.rateCap?.(s.from, s.to),
        latency: network.latency?.(s.from, s.to),
      })
    }
    return sends.map((_, i) => i + offset)
  }
  const into = (sends: readonly ScheduledSend[], ids: number[], rank: number) =>
    ids.filter((_, i) => sends[i]!.to === rank)
  const outOf = (sends: readonly ScheduledSend[], ids: number[], rank: number) =>
    ids.filter((_, i) => sends[i]!.from === rank)

  const broadcast = broadcastSchedule(m.broadcast, m.order, m.k * m.d * 4, m.chunkBytes)
  const bcIds = add(broadcast, () => ({}))
  const flops = (m.n / p) * m.k * m.d * 2
  const mapOf = Array.from({ length: p }, (_, i) => {
    transfers.push({
      path: [cpuLink],
      bytes: flops,
      after: into(broadcast, bcIds, i),
      afterSent: outOf(broadcast, bcIds, i),
      maxRate: m.slots[i]! * cpu.gflopsPerCore * 1e9,
    })
    return transfers.length - 1
  })
  const blockBytes = centroidBlocks(m.k, p).map((c) => partialBlockBytes(c, m.d))
  const ranks = Array.from({ length: p }, (_, i) => i)
  const schedules = regroupSchedule(m.aggregation, ranks, blockBytes, m.slots)
  const regroupIds = add(schedules.regroup, (s) => ({ after: [mapOf[s.from]!] }))
  add(schedules.combine, (s) => ({
    after: [mapOf[s.from]!, ...into(schedules.regroup, regroupIds, s.from)],
    afterSent: outOf(schedules.regroup, regroupIds, s.from),
  }))
  return simulateTransfers(links, transfers).makespan
}
