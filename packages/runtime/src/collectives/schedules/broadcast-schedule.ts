import type { SimulatedBroadcast } from '@codebook/shared'
import { UsageError } from '../../errors.ts'
import type { ChainOrderKind } from '../../topology/chain-order.ts'
import { blockBounds } from '../group.ts'

/** Broadcast algorithms, by the papers' names (docs/simulator.md gives their closed forms). */
export type BroadcastScheduleAlgorithm = 'simple' | 'mst' | 'bucket' | 'chain'

/**
 * The schedule algorithm and member order behind each broadcast name of the simulator, the
 * what-if API and the lab (`@codebook/shared`'s `simulatedBroadcasts`): `chain` follows the racks,
 * `chain-rank` and `chain-random` say their order; the others go in rank order.
 */
export function broadcastPlan(name: SimulatedBroadcast): {
  algorithm: BroadcastScheduleAlgorithm
  order: ChainOrderKind
} {
  if (name === 'chain') return { algorithm: 'chain', order: 'topology' }
  if (name === 'chain-rank') return { algorithm: 'chain', order: 'rank' }
  if (name === 'chain-random') return { algorithm: 'chain', order: 'random' }
  return { algorithm: name, order: 'rank' }
}

/**
 * One message of a collective schedule: `bytes` from rank `from` to rank `to`, sent once
 * every send in `after` (indices into the same schedule) has been delivered. A schedule is the
 * algorithm as data: the simulator plays it over a network model.
 */
export interface ScheduledSend {
  from: number
  to: number
  bytes: number
  /** Sends that must have arrived first (data this send forwards). */
  after: number[]
  /**
   * Sends that must merely have left the sender first (its previous message on the same stream
   * or in its own sequence): the sender streams on without waiting a round trip, so the latency
   * of a pipeline is paid once per hop.
   */
  afterSent?: number[]
  /** Which piece of the message this carries: a chunk index (or a block index for bucket). */
  piece: number
}

/** Cuts `bytes` into chunks of at most `chunkBytes`; a zero-byte message is one empty chunk. */
export function chunkSizes(bytes: number, chunkBytes: number): number[] {
  if (!(chunkBytes > 0))
    throw new UsageError('BAD_CHUNK_BYTES', `chunkBytes must be positive, got ${chunkBytes}`)
  if (bytes === 0) return [0]
  const sizes: number[] = []
  for (let off = 0; off < bytes; off += chunkBytes) sizes.push(Math.min(chunkBytes, bytes - off))
  return sizes
}

/**
 * The schedule of broadcasting `bytes` from `order[0]` to every rank of `order`.
 * - `simple`: the root sends the whole message to each receiver in turn (as the runtime does).
 * - `mst`: binomial tree; in round j every rank holding the message sends it to the rank 2^j
 *   positions further. As in the runtime, a rank forwards only once it holds the whole message,
 *   and sends to its children one after another (the lab showed the difference: with
 *   pipelined, concurrent subtrees, mst across two racks was predicted 30 % too fast).
 * - `bucket`: scatter one 1/p block to each rank (in turn, last rank first, as the runtime
 *   sends them), then a ring all-gather in p − 1 steps; a rank starts once it and its successor
 *   hold their own blocks.
 * - `chain`: a pipeline along `order`; rank i forwards chunk c to rank i + 1 as soon as it has
 *   received it, so all links carry different chunks at once.
 * Chunks of one stream go in order (each waits for the previous chunk on the same stream).
 */
export function broadcastSchedule(
  algorithm: BroadcastScheduleAlgorithm,
  order: readonly number[],
  bytes: number,
  chunkBytes: number,
): ScheduledSend[] {
  const p = order.length
  const sends: ScheduledSend[] = []
  if (p <= 1) return sends
  const chunks = chunkSizes(bytes, chunkBytes)
  // received[pos][c]: index of the send that delivered chunk c to position pos (root: none).
  const received: (number | undefined)[][] = Array.from({ length: p }, () => new Array(chunks.length))
  // lastSent[pos]: the last send of position pos, for senders that send one stream after another.
  const lastSent: (number | undefined)[] = new Array(p)
  /**
   * Streams the message from `fromPos` to `toPos`. Pipelined: chunk c goes once it has arrived.
   * Store-and-forward (the runtime's mst and simple): the stream starts once the whole message
   * has arrived and the sender's previous stream has left it, so a sender's streams go in turn.
   */
  const stream = (fromPos: number, toPos: number, storeAndForward = false) => {
    let prev: number | undefined = storeAndForward ? lastSent[fromPos] : undefined
    const whole = received[fromPos]![chunks.length - 1]
    chunks.forEach((size, c) => {
      const got = storeAndForward ? (c === 0 ? whole : undefined) : received[fromPos]![c]
      prev =
        sends.push({
          from: order[fromPos]!,
          to: order[toPos]!,
          bytes: size,
          after: got === undefined ? [] : [got],
          afterSent: prev === undefined ? [] : [prev],
          piece: c,
        }) - 1
      received[toPos]![c] = prev
    })
    lastSent[fromPos] = prev
  }
  switch (algorithm) {
    case 'simple':
      for (let pos = 1; pos < p; pos++) stream(0, pos, true)
      break
    case 'chain':
      for (let pos = 1; pos < p; pos++) stream(pos - 1, pos)
      break
    case 'mst':
      // Rounds in order, so each sender's children come in the order the runtime sends to them.
      for (let span = 1; span < p; span *= 2)
        for (let pos = 0; pos < span && pos + span < p; pos++) stream(pos, pos + span, true)
      break
    case 'bucket':
      bucketSchedule(order, bytes, chunkBytes, sends)
      break
    default:
      throw new UsageError('UNKNOWN_ALGORITHM', `unknown broadcast algorithm "${algorithm as string}"`)
  }
  return sends
}

/**
 * Byte range [start, end) of block b when `bytes` is split into p nearly equal blocks: the
 * runtime's own split (`blockBounds`), so the simulator moves exactly the runtime's bytes.
 */
export function blockRange(bytes: number, p: number, b: number): [number, number] {
  const bounds = blockBounds(bytes, p)
  return [bounds[b]!, bounds[b + 1]!]
}

function bucketSchedule(
  order: readonly number[],
  bytes: number,
  chunkBytes: number,
  sends: ScheduledSend[],
): void {
  const p = order.length
  // has[pos][block]: the last send that completed block `block` at position `pos`.
  const has: (number | undefined)[][] = Array.from({ length: p }, () => new Array(p))
  // Blocks travel as whole messages chunked on the wire; the pipeline happens across the ring.
  const sendBlock = (fromPos: number, toPos: number, block: number, after: number[], afterSent: number[]) => {
    const [start, end] = blockRange(bytes, p, block)
    let prev: number | undefined
    for (const size of chunkSizes(end - start, chunkBytes)) {
      const sent = prev === undefined ? afterSent : [prev]
      prev =
        sends.push({
          from: order[fromPos]!,
          to: order[toPos]!,
          bytes: size,
          after,
          afterSent: sent,
          piece: block,
        }) - 1
    }
    has[toPos]![block] = prev
    return prev!
  }
  // Scatter, as the runtime sends it: the root streams block pos to position pos, one stream
  // after another, the last position first (so no position's ring competes with the scatter).
  let last: number | undefined
  for (let pos = p - 1; pos >= 1; pos--) last = sendBlock(0, pos, pos, [], last === undefined ? [] : [last])
  // Ring all-gather: at step s, position pos passes block (pos − s) mod p to pos + 1. A position
  // starts as soon as it holds the block (its own, at step 0); the root, which holds them all,
  // once its scatter has left it.
  const lastSendOf: (number | undefined)[] = new Array(p)
  for (let s = 0; s < p - 1; s++) {
    const stepSends: [number, number][] = []
    for (let pos = 0; pos < p; pos++) {
      const block = (pos - s + p) % p
      const to = (pos + 1) % p
      if (to === 0) continue // the root already holds every block
      const after: number[] = []
      const got = has[pos]![block]
      if (got !== undefined) after.push(got)
      // The first ring send waits for the successor's own block (its empty READY word: no bytes,
      // its one-way latency not modelled), so it never shares that rank's link with the scatter.
      const successorsBlock = has[to]![to]
      if (s === 0 && pos !== 0 && successorsBlock !== undefined) after.push(successorsBlock)
      const prevSend = lastSendOf[pos]
      const sent = prevSend !== undefined ? [prevSend] : pos === 0 && last !== undefined ? [last] : []
      stepSends.push([pos, sendBlock(pos, to, block, after, sent)])
    }
    for (const [pos, id] of stepSends) lastSendOf[pos] = id
  }
}
