import { runBroadcasts } from '@codebook/shared'
import { CodebookError } from '../../errors.ts'
import { type Group, groupIndex, recvFrom, sendTo } from '../group.ts'
import { broadcastBucket } from './bucket.ts'
import { broadcastChain } from './chain.ts'
import { broadcastMst } from './mst.ts'
import { broadcastSimple } from './simple.ts'

/** Broadcast algorithms, by CLI/API name: the one list of `@codebook/shared`. */
export const broadcastAlgorithms = runBroadcasts
export type BroadcastAlgorithm = (typeof broadcastAlgorithms)[number]

/** One broadcast algorithm: resolves at every member to the root's bytes (and, for the chain, who was routed around). */
type Broadcaster = (
  g: Group,
  root: number,
  data: Uint8Array | null,
  opts: BroadcastOptions,
) => Promise<BroadcastResult>

const whole =
  (run: (g: Group, root: number, data: Uint8Array | null) => Promise<Uint8Array>): Broadcaster =>
  async (g, root, data) => ({ data: await run(g, root, data), skipped: [] })

/** Every algorithm of the shared list, checked at compile time. */
const broadcasters = {
  simple: whole(broadcastSimple),
  mst: whole(broadcastMst),
  bucket: whole(broadcastBucket),
  chain(g, root, data, opts) {
    const p = g.ranks.length
    const order = opts.order ?? Array.from({ length: p }, (_, i) => (root + i) % p)
    if (order[0] !== root || order.length !== p)
      throw new CodebookError(
        'CHAIN_ORDER_INVALID',
        `chain order must start at the root ${root} and list ${p} members`,
      )
    return broadcastChain(g, order, data)
  },
} satisfies Record<BroadcastAlgorithm, Broadcaster>

/** Step id of acknowledgement messages: far above any data step an algorithm uses. */
const ACK_STEP = 0xffff

/** Options of {@link broadcast}. */
export interface BroadcastOptions {
  algorithm: BroadcastAlgorithm
  /** Chain order as group indices, root first (see topology/chain-order.ts). Default: rank order from the root. */
  order?: readonly number[]
  /**
   * The root waits this long for an acknowledgement from every receiver; past it the broadcast
   * fails with BROADCAST_INCOMPLETE so the caller can restart it. Undefined: no acknowledgement round.
   */
  ackWindowMs?: number
}

/** What one member ends a broadcast with. */
export interface BroadcastResult {
  data: Uint8Array
  /** Group members routed around (chain only), as known at this member; complete at the root. */
  skipped: number[]
}

/**
 * Broadcasts `data` (given at the root, null elsewhere) from group member `root` to every
 * member; resolves at every member to the root's bytes. All members call it with the same
 * group, root and options.
 */
export async function broadcast(
  g: Group,
  root: number,
  data: Uint8Array | null,
  opts: BroadcastOptions,
): Promise<BroadcastResult> {
  const me = groupIndex(g)
  const p = g.ranks.length
  if (me === root && !data)
    throw new CodebookError('BROADCAST_NO_DATA', 'the broadcast root was given no data')
  const run = Object.hasOwn(broadcasters, opts.algorithm) ? broadcasters[opts.algorithm] : undefined
  if (!run)
    throw new CodebookError('BROADCAST_UNKNOWN', `unknown broadcast algorithm '${String(opts.algorithm)}'`)
  const result = await run(g, root, data, opts)
  if (opts.ackWindowMs === undefined || p === 1) return result
  if (me !== root) {
    await sendTo(g, root, ACK_STEP, new Uint8Array(Int32Array.from(result.skipped).buffer))
    return result
  }
  const skipped = new Set(result.skipped)
  await collectAcks(g, root, skipped, opts.ackWindowMs)
  return { data: result.data, skipped: [...skipped].sort((a, b) => a - b) }
}

/** Waits for an ack from every member not known to be skipped; acks may name more skipped members. */
async function collectAcks(g: Group, root: number, skipped: Set<number>, windowMs: number): Promise<void> {
  const pending = new Set<number>()
  for (let i = 0; i < g.ranks.length; i++) if (i !== root) pending.add(i)
  const acked = new Set<number>()
  let wake: () => void = () => {}
  let failed: Error | null = null
  for (const i of pending) {
    // The ack window governs here, not the per-message receive timeout: a member acks only after
    // forwarding everything, which includes routing around a refusing successor. The receive
    // outlives the window by a second, so BROADCAST_INCOMPLETE (below) fires first and an ack
    // that never comes does not leave a receive pending for ever.
    recvFrom({ ...g, timeoutMs: windowMs + 1000 }, i, ACK_STEP)
      .then((bytes) => {
        acked.add(i)
        const list = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
        for (const s of list) skipped.add(s)
        wake()
      })
      .catch((err: Error) => {
        // An aborted op (a lost worker) fails the broadcast now rather than at the window's end.
        failed ??= err
        wake()
      })
  }
  const deadline = Date.now() + windowMs
  for (;;) {
    if (failed) throw failed
    const missing = [...pending].filter((i) => !acked.has(i) && !skipped.has(i))
    if (missing.length === 0) return
    const left = deadline - Date.now()
    if (left <= 0) {
      throw new CodebookError(
        'BROADCAST_INCOMPLETE',
        `no acknowledgement within ${windowMs} ms from group members ${missing.join(', ')} (op ${g.op})`,
      )
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, left)
      wake = () => {
        clearTimeout(t)
        resolve()
      }
    })
  }
}
