import { blockBounds, type Group, groupIndex, recvFrom, sendTo } from '../group.ts'

/**
 * Bucket broadcast (van de Geijn): the root scatters p blocks of n/p bytes, then a ring
 * all-gather circulates them, p − 1 steps. Cost ≈ (2p − 1)(α + nβ/p) ≈ 2nβ, independent of p.
 * Blocks are placed by offset into one buffer, so nothing is copied twice. The root already
 * holds every block, so the ring skips the hop into the root (saves n/p·(p − 1) bytes).
 *
 * The root's link carries 2(p − 1) blocks, the critical path, so nothing may slow it. A rank
 * starts its ring as soon as it holds its own block; sent into a successor still receiving its
 * scatter block, that ring stream took half the successor's receive link from the root (the
 * lab's +18–22 %: docs/lab.md, "Bucket: the scatter's order"). So a rank sends its
 * first ring block only once its successor says it holds its own (an empty READY message), and
 * the root scatters last rank first, so that word is usually there before it is needed. The
 * order alone is not enough: the kernel's socket buffers let the root's "in turn" sends overlap
 * when blocks are smaller than the buffers.
 */
export async function broadcastBucket(g: Group, root: number, data: Uint8Array | null): Promise<Uint8Array> {
  const p = g.ranks.length
  const r = (groupIndex(g) - root + p) % p
  const member = (rel: number) => (rel + root) % p
  if (p === 1) return data!
  // After the ring's steps 1 … p − 1.
  const READY_STEP = p
  const next = (r + 1) % p
  const prev = (r - 1 + p) % p
  let buf: Uint8Array
  if (r === 0) {
    buf = data!
    const b = blockBounds(buf.byteLength, p)
    for (let i = p - 1; i >= 1; i--) await sendTo(g, member(i), 0, buf, b[i], b[i + 1])
  } else {
    buf = await recvFrom(g, member(0), 0)
    // The root needs no word: its ring into rank 1 follows the scatter on the same connection.
    if (prev !== 0) await sendTo(g, member(prev), READY_STEP, new Uint8Array(0))
  }
  const successorReady = r !== 0 && next !== 0 ? recvFrom(g, member(next), READY_STEP) : Promise.resolve()
  const b = blockBounds(buf.byteLength, p)
  for (let s = 1; s < p; s++) {
    const sendBlock = (r - s + 1 + p) % p
    const tasks: Promise<unknown>[] = []
    const send = () => sendTo(g, member(next), s, buf, b[sendBlock], b[sendBlock + 1])
    if (next !== 0) tasks.push(s === 1 ? successorReady.then(send) : send())
    // Receives block (r − s) mod p; frames carry their offsets, so it lands in place.
    if (r !== 0) tasks.push(recvFrom(g, member(prev), s, buf))
    await Promise.all(tasks)
  }
  return buf
}
