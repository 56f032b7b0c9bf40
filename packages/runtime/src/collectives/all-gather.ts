import { type Group, groupIndex, recvFrom, sendTo } from './group.ts'

/**
 * Ring all-gather of variable-size blocks: in step s every member sends the block it received in
 * step s − 1 (its own first) to its successor. p − 1 steps, each member sends (p − 1)/p of the
 * total — bandwidth-optimal. Resolves at every member to all blocks in group order. Message ids
 * are `stepBase` + 1 … p − 1, so it can follow another collective on the same op.
 */
export async function allGather(g: Group, block: Uint8Array, stepBase = 0): Promise<Uint8Array[]> {
  const p = g.ranks.length
  const me = groupIndex(g)
  const blocks: Uint8Array[] = new Array(p)
  blocks[me] = block
  const next = (me + 1) % p
  const prev = (me - 1 + p) % p
  for (let s = 1; s < p; s++) {
    const sendIdx = (me - s + 1 + p) % p
    const recvIdx = (me - s + p) % p
    const [, got] = await Promise.all([
      sendTo(g, next, stepBase + s, blocks[sendIdx]!),
      recvFrom(g, prev, stepBase + s),
    ])
    blocks[recvIdx] = got
  }
  return blocks
}
