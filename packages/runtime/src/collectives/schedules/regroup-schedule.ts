import { UsageError } from '../../errors.ts'
import type { AggregationMode } from '../regroup/regroup.ts'
import type { ScheduledSend } from './broadcast-schedule.ts'

/**
 * Centroids in each of p blocks of k centroids: block j holds centroids
 * [⌊jk/p⌋, ⌊(j+1)k/p⌋), so sizes differ by at most one (the runtime's `blockBounds(k, p)`).
 */
export function centroidBlocks(k: number, p: number): number[] {
  if (!Number.isInteger(k) || k < 1 || !Number.isInteger(p) || p < 1)
    throw new UsageError('BAD_BLOCKS', `k and p must be positive integers, got k = ${k}, p = ${p}`)
  return Array.from({ length: p }, (_, j) => Math.floor(((j + 1) * k) / p) - Math.floor((j * k) / p))
}

/** Bytes of a dense partial block of `centroids` centroids: d float64 sums and a float64 count each. */
export function partialBlockBytes(centroids: number, d: number): number {
  return centroids * (d + 1) * 8
}

/**
 * All-to-all of centroid blocks: rank i sends `bytes(i, j)` to owner j for every j ≠ i, all at
 * once (a rank's own block stays local). Rank j owns block j. `piece` is the block index.
 */
export function allToAllSchedule(p: number, bytes: (from: number, to: number) => number): ScheduledSend[] {
  const sends: ScheduledSend[] = []
  for (let from = 0; from < p; from++)
    for (let to = 0; to < p; to++)
      if (from !== to) sends.push({ from, to, bytes: bytes(from, to), after: [], piece: to })
  return sends
}

/** A ring schedule and who ends up holding which reduced block. */
export interface RingSchedule {
  sends: ScheduledSend[]
  /** owner[b]: the rank holding the fully reduced block b after the reduce-scatter. */
  owner: number[]
  /** lastReceive[pos]: index of the last send into ring position pos (undefined when p = 1). */
  lastReceive: (number | undefined)[]
  /** lastSend[pos]: index of the last send out of ring position pos. */
  lastSend: (number | undefined)[]
}

/**
 * Ring reduce-scatter over `ring` (ranks in ring order) of p blocks of `blockBytes[b]` bytes:
 * in step s = 0 … p − 2, position i sends block (i − s) mod p to position i + 1, which adds its
 * own partial block before forwarding it in step s + 1. A send waits for the receive it forwards
 * and for the same rank's previous send (one NIC, sends in order). Position q ends up owning
 * block (q + 1) mod p.
 */
export function ringReduceScatterSchedule(
  ring: readonly number[],
  blockBytes: readonly number[],
): RingSchedule {
  const p = ring.length
  if (blockBytes.length !== p)
    throw new UsageError('BAD_BLOCKS', `${blockBytes.length} blocks for a ring of ${p} ranks`)
  const sends: ScheduledSend[] = []
  const lastReceive: (number | undefined)[] = new Array(p).fill(undefined)
  const lastSend: (number | undefined)[] = new Array(p).fill(undefined)
  for (let s = 0; s < p - 1; s++) {
    // Every position sends in step s from what it received in step s − 1 (snapshot first).
    const received = [...lastReceive]
    for (let i = 0; i < p; i++) {
      const block = (((i - s) % p) + p) % p
      const after: number[] = []
      const got = received[i]
      if (s > 0 && got !== undefined) after.push(got)
      // The sender's previous step need only have left it (latency is paid once per hop).
      const prev = lastSend[i]
      const id =
        sends.push({
          from: ring[i]!,
          to: ring[(i + 1) % p]!,
          bytes: blockBytes[block]!,
          after,
          afterSent: prev === undefined ? [] : [prev],
          piece: block,
        }) - 1
      lastSend[i] = id
      lastReceive[(i + 1) % p] = id
    }
  }
  const owner = Array.from({ length: p }, (_, b) => ring[(((b - 1) % p) + p) % p]!)
  return { sends, owner, lastReceive, lastSend }
}

/**
 * Ring all-gather after {@link ringReduceScatterSchedule} (appended to its sends, indices
 * continuing): in step s = 0 … p − 2, position i sends block (i + 1 − s) mod p to position i + 1.
 * Step 0 waits for the reduce-scatter to deliver the block it sends.
 */
export function ringAllGatherSchedule(
  ring: readonly number[],
  blockBytes: readonly number[],
  after: RingSchedule,
): ScheduledSend[] {
  const p = ring.length
  const sends = [...after.sends]
  const lastReceive = [...after.lastReceive]
  const lastSend = [...after.lastSend]
  for (let s = 0; s < p - 1; s++) {
    const received = [...lastReceive]
    for (let i = 0; i < p; i++) {
      const block = (((i + 1 - s) % p) + p) % p
      const deps: number[] = []
      const got = received[i]
      if (got !== undefined) deps.push(got)
      const prev = lastSend[i]
      const id =
        sends.push({
          from: ring[i]!,
          to: ring[(i + 1) % p]!,
          bytes: blockBytes[block]!,
          after: deps,
          afterSent: prev === undefined || prev === got ? [] : [prev],
          piece: block,
        }) - 1
      lastSend[i] = id
      lastReceive[(i + 1) % p] = id
    }
  }
  return sends
}

/** Gather to `root`: every other rank r sends `bytes[r]` to the root, all at once. */
export function gatherSchedule(root: number, bytes: readonly number[]): ScheduledSend[] {
  const sends: ScheduledSend[] = []
  bytes.forEach((b, r) => {
    if (r !== root && b > 0) sends.push({ from: r, to: root, bytes: b, after: [], piece: r })
  })
  return sends
}

/** The communication of one K-means regroup, split into the stages the runtime reports. */
export interface RegroupSchedules {
  /** Shuffle + reduce: partial blocks to their owners. */
  regroup: ScheduledSend[]
  /** Combine: reduced blocks to the driver (rank `ring[0]`); empty for `allreduce`. */
  combine: ScheduledSend[]
}

/**
 * The regroup and combine communication of one K-means iteration over p ranks (0 … p − 1),
 * with centroid block b of `blockBytes[b]` bytes (dense partial sums, see
 * {@link partialBlockBytes}), mirroring `collectives/regroup/regroup.ts` (whose rings run in
 * rank order: pass `ring` = 0 … p − 1 to match it):
 * - `three-stage` (the paper's 3-stage aggregation): each rank merges its map tasks' partials,
 *   then sends block j to owner j — an all-to-all of blocks; combine gathers block j from rank j
 *   at the driver.
 * - `direct`: every map task sends its own block j to owner j, so rank i sends `slots[i]` blocks
 *   to each owner. They share one path and start together, so max-min sharing gives them the
 *   same rate: they are written as one send of `slots[i]` × the block (same finish time).
 * - `ring`: local merge, ring reduce-scatter by centroid block along `ring`, then gather.
 * - `allreduce`: ring reduce-scatter then ring all-gather; every rank ends with all centroids,
 *   so there is no combine. (The runtime's all-reduce cuts the flat sums-and-counts vector into
 *   p byte blocks rather than centroid blocks: the same bytes per step, ±1 centroid.)
 */
export function regroupSchedule(
  mode: AggregationMode,
  ring: readonly number[],
  blockBytes: readonly number[],
  slots: readonly number[],
): RegroupSchedules {
  const p = ring.length
  if (blockBytes.length !== p || slots.length !== p)
    throw new UsageError('BAD_BLOCKS', `need one block and one slot count per rank (${p} ranks)`)
  const root = ring[0]!
  if (mode === 'three-stage' || mode === 'direct') {
    const per = (from: number) => (mode === 'direct' ? slots[from]! : 1)
    return {
      regroup: allToAllSchedule(p, (from, to) => per(from) * blockBytes[to]!),
      combine: gatherSchedule(root, blockBytes),
    }
  }
  const rs = ringReduceScatterSchedule(ring, blockBytes)
  if (mode === 'allreduce') return { regroup: ringAllGatherSchedule(ring, blockBytes, rs), combine: [] }
  const held = new Array<number>(p).fill(0)
  rs.owner.forEach((rank, b) => {
    held[rank]! += blockBytes[b]!
  })
  return { regroup: rs.sends, combine: gatherSchedule(root, held) }
}
