import { blockBounds, type Group, groupIndex, recvFrom, sendTo } from '../group.ts'

/**
 * Bucket broadcast (van de Geijn): the root scatters p blocks of n/p bytes, then a ring
 * all-gather circulates them, p − 1 steps. Cost ≈ (2p − 1)(α + nβ/p) ≈ 2nβ, independent of p.
 * Blocks are placed by offset into one buffer, so nothing is copied twice. The root already
 * holds every block, so the ring skips the hop into the root (saves n/p·(p − 1) bytes).
 *
 * The root scatters in turn from the last rank to the first. A rank starts its ring as soon
 * as it holds its own block, so with the scatter in rank order the early ranks' ring steps
 * shared the later ranks' receive links with the root's scatter, and the root's link (which
 * carries 2(p − 1) blocks, the critical path) ran below its rate: +18–22 % in the lab
 * (docs/reproductions.md, "Bucket: the scatter's order"). Last rank first, a rank's successor
 * already holds its block when the rank starts its ring, so no receive link is ever shared;
 * the scatter at once avoids the sharing only as far as TCP shares the root's link fairly.
 */
export async function broadcastBucket(g: Group, root: number, data: Uint8Array | null): Promise<Uint8Array> {
  const p = g.ranks.length
  const r = (groupIndex(g) - root + p) % p
  const member = (rel: number) => (rel + root) % p
  if (p === 1) return data!
  let buf: Uint8Array
  if (r === 0) {
    buf = data!
    const b = blockBounds(buf.byteLength, p)
    for (let i = p - 1; i >= 1; i--) await sendTo(g, member(i), 0, buf, b[i], b[i + 1])
  } else {
    buf = await recvFrom(g, member(0), 0)
  }
  const b = blockBounds(buf.byteLength, p)
  const next = (r + 1) % p
  const prev = (r - 1 + p) % p
  for (let s = 1; s < p; s++) {
    const sendBlock = (r - s + 1 + p) % p
    const tasks: Promise<unknown>[] = []
    if (next !== 0) tasks.push(sendTo(g, member(next), s, buf, b[sendBlock], b[sendBlock + 1]))
    // Receives block (r − s) mod p; frames carry their offsets, so it lands in place.
    if (r !== 0) tasks.push(recvFrom(g, member(prev), s, buf))
    await Promise.all(tasks)
  }
  return buf
}
