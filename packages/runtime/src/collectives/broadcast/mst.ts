import { type Group, groupIndex, recvFrom, sendTo } from '../group.ts'

/**
 * Minimum-spanning-tree (binomial) broadcast: in round j every node that has the message sends
 * it to the node 2^j further on, so ⌈log₂ p⌉ rounds suffice. Cost ⌈log₂p⌉(α + nβ).
 * Ranks are relative to the root: relative rank r receives from r − (highest set bit of r) and
 * then sends to r + 2^j for every round j after the one it received in — the tree of
 * `schedules/broadcast-schedule.ts`, which the simulator plays.
 */
export async function broadcastMst(g: Group, root: number, data: Uint8Array | null): Promise<Uint8Array> {
  const p = g.ranks.length
  const r = (groupIndex(g) - root + p) % p
  const member = (rel: number) => (rel + root) % p
  let buf = data
  // Highest set bit of r (0 for the root, which holds the message from the start).
  const high = r === 0 ? 0 : 2 ** (31 - Math.clz32(r))
  if (r > 0) buf = await recvFrom(g, member(r - high), 0)
  for (let mask = r === 0 ? 1 : high * 2; r + mask < p; mask *= 2) await sendTo(g, member(r + mask), 0, buf!)
  return buf!
}
