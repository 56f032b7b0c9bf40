import {
  type BroadcastScheduleAlgorithm,
  broadcastSchedule,
} from '../collectives/schedules/broadcast-schedule.ts'
import type { ClusterNetwork } from './cluster-network.ts'
import { playSchedule } from './play-schedule.ts'

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
  const { seconds, crossRackBytes, messages } = playSchedule(
    network,
    broadcastSchedule(algorithm, order, bytes, chunkBytes),
    startup,
  )
  return { seconds, crossRackBytes, messages }
}
