import { CodebookError } from '../../errors.ts'
import { PeerUnreachableError } from '../../transport/data-plane.ts'
import type { FrameHeader } from '../../transport/frame.ts'
import { type Group, groupIndex } from '../group.ts'

/** Result of a chain broadcast at one member: the bytes, and members it had to skip. */
export interface ChainResult {
  data: Uint8Array
  /** Group members this node could not connect to and routed around. */
  skipped: number[]
}

/**
 * Pipelined chain broadcast: members in `order` (order[0] is the root) form a chain; the message
 * travels in chunks and every node forwards chunk i while chunk i + 1 is arriving. Cost
 * (p + k − 1)(α + nβ/k) ≈ nβ for k chunks: the time of one link, whatever p.
 *
 * Fault tolerance: if a successor refuses connections (after the transport's retries with
 * backoff), the node skips it and forwards to the next member of the chain instead; skipped
 * members are returned so the root's acknowledgement round knows not to wait for them. A
 * kept-open connection that the successor closed is noticed on the first send and replaced.
 */
export async function broadcastChain(
  g: Group,
  order: readonly number[],
  data: Uint8Array | null,
): Promise<ChainResult> {
  const me = groupIndex(g)
  const pos = order.indexOf(me)
  const skipped: number[] = []
  let nextPos = pos + 1

  /** Sends one frame down the chain, routing around unreachable successors. */
  async function forward(header: FrameHeader, payload: Uint8Array, first: boolean): Promise<void> {
    let reconnected = false
    while (nextPos < order.length) {
      try {
        if (first) await g.plane.connection(g.ranks[order[nextPos]!]!)
        // Filed at the receiver under its direct predecessor, whoever actually sends.
        const asFrom = g.ranks[order[nextPos - 1]!]!
        await g.plane.sendFrame(g.ranks[order[nextPos]!]!, { ...header, from: asFrom }, payload)
        return
      } catch (err) {
        // A kept-open connection the successor has closed (it stopped listening, or died) may
        // only show it by failing the first send. Try once more on a fresh connection: a refused
        // one then routes around the successor like any unreachable one.
        if (first && !reconnected && err instanceof CodebookError && err.code === 'PEER_CLOSED') {
          reconnected = true
          continue
        }
        if (!(first && err instanceof PeerUnreachableError)) throw err
        skipped.push(order[nextPos]!)
        nextPos++
        reconnected = false
      }
    }
  }

  if (pos === 0) {
    const buf = data!
    const chunk = g.plane.chunkBytes
    const count = Math.max(1, Math.ceil(buf.byteLength / chunk))
    for (let i = 0; i < count; i++) {
      const a = i * chunk
      const b = Math.min(buf.byteLength, a + chunk)
      const header: FrameHeader = {
        type: 2,
        step: 0,
        from: g.plane.rank,
        op: g.op,
        chunkIndex: i,
        chunkCount: count,
        payloadBytes: b - a,
        offset: a,
        totalBytes: buf.byteLength,
      }
      await forward(header, buf.subarray(a, b), i === 0)
    }
    return { data: buf, skipped }
  }

  // Frames are filed under the direct predecessor even when an earlier member routed around it.
  let buf: Uint8Array | null = null
  let first = true
  const prev = order[pos - 1]!
  for await (const c of g.plane.chunks(g.ranks[prev]!, g.op, 0, g.timeoutMs)) {
    // The transport decodes straight into the message buffer; forward views of it, never copies.
    buf = c.buffer
    await forward(c.header, c.data, first)
    first = false
  }
  return { data: buf ?? new Uint8Array(0), skipped }
}
