import { type Group, groupIndex, recvFrom, sendTo } from '../group.ts'

/**
 * Minimum-spanning-tree (binomial) broadcast: in round j every node that has the message sends
 * it to the node 2^j further on, so ⌈log₂ p⌉ rounds suffice. Cost ⌈log₂p⌉(α + nβ).
 * Ranks are relative to the root: relative rank r receives from r − (highest set bit of r).
 */
export async function broadcastMst(g: Group, root: number, data: Uint8Array | null): Promise<Uint8Array> {
  const p = g.ranks.length
  const r = (groupIndex(g) - root + p) % p
  const member = (rel: number) => (rel + root) % p
  let buf = data
  let mask = 1
  while (mask < p) {
    if (r & mask) {
      buf = await recvFrom(g, member(r - mask), 0)
      break
    }
    mask <<= 1
  }
  // Send to children, largest subtree first, so the deepest branch starts earliest.
  mask >>= 1
  while (mask > 0) {
    if (r + mask < p) await sendTo(g, member(r + mask), 0, buf!)
    mask >>= 1
  }
  return buf!
}
