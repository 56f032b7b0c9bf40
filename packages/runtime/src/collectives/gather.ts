import { type Group, groupIndex, recvFrom, sendTo } from './group.ts'

/**
 * Gather: every member sends its block to `root`, which resolves to all blocks in group order
 * (its own included); other members resolve to null. Linear: the root's link carries the data
 * once, which is the lower bound for a gather.
 */
export async function gather(g: Group, root: number, block: Uint8Array): Promise<Uint8Array[] | null> {
  const me = groupIndex(g)
  if (me !== root) {
    await sendTo(g, root, 0, block)
    return null
  }
  const p = g.ranks.length
  return Promise.all(
    Array.from({ length: p }, (_, i) => (i === root ? Promise.resolve(block) : recvFrom(g, i, 0))),
  )
}
