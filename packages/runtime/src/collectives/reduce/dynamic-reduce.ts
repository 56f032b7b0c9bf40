import { CodebookError } from '../../errors.ts'
import { type Group, groupIndex, recvFrom, sendTo } from '../group.ts'
import type { Pairing, Transfer } from './pairing.ts'
import type { MemberReduction, ReduceHooks, ReduceInput } from './reduce-types.ts'

/**
 * The dynamic reductions on the data plane. A small coordinator on the root member decides who
 * pairs with whom ({@link Pairing}); the values travel worker to worker, never through it.
 *
 * Protocol, all on the reduction's op: a member announces "ready" to the coordinator (step
 * `READY + n` for its n-th announcement, empty), the coordinator answers with an order (step
 * `ORDER + n`: send to / receive from a peer, or "you hold the result"), and a value goes from
 * sender to receiver as step `VALUE` (each member sends once). The coordinator's own
 * announcements are function calls.
 */
const READY = 0
const ORDER = 0x4000
const VALUE = 0x7fff

const ORDER_SEND = 0
const ORDER_RECEIVE_RIGHT = 1
const ORDER_RECEIVE_LEFT = 2
const ORDER_DONE = 3

interface Order {
  kind: number
  peer: number
}

const encodeOrder = (o: Order) => new Uint8Array(Int32Array.of(o.kind, o.peer).buffer)
function decodeOrder(bytes: Uint8Array): Order {
  if (bytes.byteLength !== 8)
    throw new CodebookError('REDUCE_BAD_ORDER', `reduction order of ${bytes.byteLength} bytes, expected 8`)
  const v = new DataView(bytes.buffer, bytes.byteOffset, 8)
  return { kind: v.getInt32(0, true), peer: v.getInt32(4, true) }
}

/**
 * Runs a dynamic reduction at this member: every member calls it with the same group, `root`
 * (where the coordinator runs) and a fresh {@link Pairing} of the same kind. Resolves, at the
 * member that ends holding the reduced value, to that value; elsewhere to null.
 */
export async function dynamicReduce<P>(
  g: Group,
  root: number,
  input: ReduceInput<P>,
  pairing: () => Pairing,
  hooks: ReduceHooks = {},
): Promise<MemberReduction<P>> {
  const me = groupIndex(g)
  if (me !== root) return participate(g, input, hooks, (seq) => announceRemote(g, root, seq))
  const coordinator = new Coordinator(g, root, pairing())
  const [mine, holder] = await Promise.all([
    participate(g, input, hooks, () => coordinator.readyLocal()),
    coordinator.run(),
  ])
  return { ...mine, holder }
}

async function announceRemote(g: Group, root: number, seq: number): Promise<Order> {
  // The order's receive is posted with the announcement (both settle, so neither rejects unheard).
  const [order] = await Promise.all([
    recvFrom(g, root, ORDER + seq),
    sendTo(g, root, READY + seq, new Uint8Array(0)),
  ])
  return decodeOrder(order)
}

/** One member's side: announce, obey, repeat until it has sent its value or holds the result. */
async function participate<P>(
  g: Group,
  input: ReduceInput<P>,
  hooks: ReduceHooks,
  announce: (seq: number) => Promise<Order>,
): Promise<MemberReduction<P>> {
  const { combiner, value, keys } = input
  const messages = { sparse: 0, dense: 0 }
  for (let seq = 0; ; seq++) {
    const order = await announce(seq)
    if (order.kind === ORDER_DONE) return { value, holder: order.peer, messages }
    if (order.kind === ORDER_SEND) {
      const enc = combiner.encode(value, 0, keys)
      if (enc.sparse) messages.sparse++
      else messages.dense++
      await sendTo(g, order.peer, VALUE, enc.bytes)
      return { value: null, holder: null, messages }
    }
    const bytes = await recvFrom(g, order.peer, VALUE)
    await hooks.beforeCombine?.(order.peer)
    combiner.combineBlock(value, bytes, order.kind === ORDER_RECEIVE_RIGHT ? 'right' : 'left')
  }
}

/** The "who is ready" coordinator, on the root member. */
class Coordinator {
  private readonly n: number
  /** Announcements seen from each member. */
  private readonly seen: number[]
  private merges = 0
  private localOrder: ((o: Order) => void) | null = null
  private finished!: (holder: number) => void
  private failed!: (e: unknown) => void
  private readonly done = new Promise<number>((resolve, reject) => {
    this.finished = resolve
    this.failed = reject
  })

  constructor(
    private readonly g: Group,
    private readonly root: number,
    private readonly pairing: Pairing,
  ) {
    this.n = g.ranks.length
    this.seen = new Array(this.n).fill(0)
  }

  /** Listens for every other member's first announcement; resolves to the member holding the result. */
  run(): Promise<number> {
    for (let m = 0; m < this.n; m++) if (m !== this.root) this.listen(m)
    return this.done
  }

  readyLocal(): Promise<Order> {
    const order = new Promise<Order>((resolve) => {
      this.localOrder = resolve
    })
    this.onReady(this.root)
    return order
  }

  private listen(m: number): void {
    recvFrom(this.g, m, READY + this.seen[m]!).then(
      () => this.onReady(m),
      (e) => this.failed(e),
    )
  }

  private onReady(m: number): void {
    this.seen[m]!++
    // Every value but one has been sent: the member announcing now holds the result.
    if (this.merges === this.n - 1) {
      this.order(m, { kind: ORDER_DONE, peer: m })
      this.finished(m)
      return
    }
    const t: Transfer | null = this.pairing.ready(m)
    if (!t) return
    this.merges++
    this.order(t.sender, { kind: ORDER_SEND, peer: t.receiver })
    this.order(t.receiver, {
      kind: t.side === 'right' ? ORDER_RECEIVE_RIGHT : ORDER_RECEIVE_LEFT,
      peer: t.sender,
    })
    // The receiver announces again after combining.
    if (t.receiver !== this.root) this.listen(t.receiver)
  }

  private order(m: number, o: Order): void {
    if (m === this.root) {
      const resolve = this.localOrder!
      this.localOrder = null
      resolve(o)
      return
    }
    sendTo(this.g, m, ORDER + this.seen[m]! - 1, encodeOrder(o)).catch((e) => this.failed(e))
  }
}
