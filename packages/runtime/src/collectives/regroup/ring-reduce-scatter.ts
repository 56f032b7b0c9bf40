import { type Group, groupIndex, recvFrom, sendTo } from '../group.ts'
import type { Combiner, EncodedBlock } from './combiner.ts'

/**
 * Ring reduce-scatter of keyed partials by key block (`bounds`: p + 1 key bounds), through the
 * combiner's codec: in step s member i sends its running block (i − s) mod p to member i + 1,
 * which combines it with its own; after p − 1 steps member i holds block (i + 1) mod p complete.
 * `local` is combined in place; `onEncoded` sees every block encoded. Returns the owned block.
 *
 * A non-commutative ⊕ needs group order, but block b travels b, b + 1, …, p − 1, 0, …, b − 1:
 * past member p − 1 the ring wraps and what arrives holds *higher* members than the receiver.
 * So each message carries the rank interval it covers as up to two segments: the low part
 * (members 0 … sender, after the wrap; or b … sender before it) and the high part (members b …
 * p − 1). Member 0 does not combine the high part it receives: it forwards it as bytes next to
 * the low part it starts, every later member combines only into the low part, and the owner ends
 * with low ⊕ high. The ring keeps its pattern (p − 1 steps, one message to the successor each);
 * a message after the wrap carries at most one extra block. Commutative combiners send one
 * encoded block per message, exactly as before.
 */
export async function ringReduceScatter<P>(
  g: Group,
  local: P,
  combiner: Combiner<P>,
  bounds: readonly number[],
  onEncoded: (e: EncodedBlock) => void,
): Promise<number> {
  const p = g.ranks.length
  const me = groupIndex(g)
  const next = (me + 1) % p
  const prev = (me - 1 + p) % p
  const encode = (b: number): Uint8Array => {
    const e = combiner.encode(local, bounds[b]!, bounds[b + 1]!)
    onEncoded(e)
    return e.bytes
  }
  // The high segment of each block that wrapped before reaching this member, kept as bytes.
  const high = new Map<number, Uint8Array>()
  for (let s = 0; s < p - 1; s++) {
    const sendBlock = (me - s + p) % p
    const recvBlock = (me - s - 1 + p) % p
    const message = combiner.commutative
      ? encode(sendBlock)
      : packSegments(encode(sendBlock), high.get(sendBlock))
    const [, got] = await Promise.all([sendTo(g, next, s, message), recvFrom(g, prev, s)])
    if (combiner.commutative) {
      combiner.combineBlock(local, got, 'right')
      continue
    }
    const { low, high: wrapped } = unpackSegments(got)
    if (wrapped) {
      high.set(recvBlock, wrapped)
      combiner.combineBlock(local, low, 'left')
    } else if (me === 0) high.set(recvBlock, low)
    else combiner.combineBlock(local, low, 'left')
  }
  const owned = (me + 1) % p
  const tail = high.get(owned)
  if (tail) combiner.combineBlock(local, tail, 'right')
  return owned
}

const SEGMENT_HEADER = 8

/** `u32 low bytes | u32 has high | low, padded to 8 | high`: both segments start 8-aligned. */
function packSegments(low: Uint8Array, high: Uint8Array | undefined): Uint8Array {
  const at = SEGMENT_HEADER + Math.ceil(low.length / 8) * 8
  const out = new Uint8Array(at + (high?.length ?? 0))
  const head = new DataView(out.buffer)
  head.setUint32(0, low.length, true)
  head.setUint32(4, high ? 1 : 0, true)
  out.set(low, SEGMENT_HEADER)
  if (high) out.set(high, at)
  return out
}

function unpackSegments(m: Uint8Array): { low: Uint8Array; high: Uint8Array | undefined } {
  const head = new DataView(m.buffer, m.byteOffset, SEGMENT_HEADER)
  const lowBytes = head.getUint32(0, true)
  const at = SEGMENT_HEADER + Math.ceil(lowBytes / 8) * 8
  return {
    low: m.subarray(SEGMENT_HEADER, SEGMENT_HEADER + lowBytes),
    high: head.getUint32(4, true) === 1 ? m.subarray(at) : undefined,
  }
}
