import type { ScheduledSend } from '../collectives/schedules/broadcast-schedule.ts'
import type { ClusterNetwork } from './cluster-network.ts'
import { simulateTransfers } from './flow-network.ts'

/** Predicted cost of one collective schedule. */
export interface SchedulePrediction {
  seconds: number
  /** Bytes sent in all (a send to oneself carries none). */
  bytes: number
  /** Bytes that crossed a rack uplink (counted once per crossing). */
  crossRackBytes: number
  messages: number
}

/**
 * Plays any collective schedule over `network` at flow level: each send becomes a transfer on
 * the route between its ranks (rank = node index), with the schedule's dependencies and a
 * per-message start-up α of `startup` seconds.
 */
export function playSchedule(
  network: ClusterNetwork,
  sends: readonly ScheduledSend[],
  startup = 0,
): SchedulePrediction {
  const result = simulateTransfers(
    network.links,
    sends.map((s) => ({
      path: network.path(s.from, s.to),
      bytes: s.bytes,
      after: s.after,
      afterSent: s.afterSent,
      startup,
      maxRate: network.rateCap?.(s.from, s.to),
      latency: network.latency?.(s.from, s.to),
    })),
  )
  let bytes = 0
  let crossRackBytes = 0
  for (const s of sends) {
    if (s.from === s.to) continue
    bytes += s.bytes
    if (network.rackOf(s.from) !== network.rackOf(s.to)) crossRackBytes += s.bytes
  }
  return { seconds: result.makespan, bytes, crossRackBytes, messages: sends.length }
}
