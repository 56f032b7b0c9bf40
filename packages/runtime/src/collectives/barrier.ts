import { type Group, groupIndex, recvFrom, sendTo } from './group.ts'

const EMPTY = new Uint8Array(0)

/**
 * Dissemination barrier: in round j member i signals i + 2^j and waits for i − 2^j; after
 * ⌈log₂ p⌉ rounds every member has (transitively) heard from every other. Zero payload bytes.
 */
export async function barrier(g: Group): Promise<void> {
  const p = g.ranks.length
  const me = groupIndex(g)
  for (let dist = 1, round = 0; dist < p; dist *= 2, round++) {
    await Promise.all([sendTo(g, (me + dist) % p, round, EMPTY), recvFrom(g, (me - dist + p) % p, round)])
  }
}
