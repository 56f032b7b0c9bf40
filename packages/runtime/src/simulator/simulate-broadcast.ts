import {
  type BroadcastScheduleAlgorithm,
  broadcastSchedule,
} from '../collectives/schedules/broadcast-schedule.ts'
import type { ClusterNetwork } from './cluster-network.ts'
import { simulateTransfers } from './flow-network.ts'

/** Predicted cost of one broadcast. */
export interface BroadcastPrediction {
  seconds: number
  /** Bytes that crossed a rack uplink (counted once per crossing). */
  crossRackBytes: number
  messages: number
}

/**
 * Plays the broadcast schedule of `algorithm` along `order` (root first) over `network`:
 * the same schedule the algorithm is defined by, at flow level. `startup` is the per-message
 * software cost α.
 */
export function simulateBroadcast(
  network: ClusterNetwork,
  algorithm: BroadcastScheduleAlgorithm,
  order: readonly number[],
  bytes: number,
  chunkBytes: number,
  startup = 0,
): BroadcastPrediction {
  const sends = broadcastSchedule(algorithm, order, bytes, chunkBytes)
  const result = simulateTransfers(
    network.links,
    sends.map((s) => ({ path: network.path(s.from, s.to), bytes: s.bytes, after: s.after, startup })),
  )
  let crossRackBytes = 0
  for (const s of sends) if (network.rackOf(s.from) !== network.rackOf(s.to)) crossRackBytes += s.bytes
  return { seconds: result.makespan, crossRackBytes, messages: sends.length }
}
