import { type Group, groupIndex, recvFrom, sendTo } from '../group.ts'

/** Simple broadcast: the root sends the whole message to every other member in turn. Cost p(α + nβ). */
export async function broadcastSimple(g: Group, root: number, data: Uint8Array | null): Promise<Uint8Array> {
  const me = groupIndex(g)
  if (me !== root) return recvFrom(g, root, 0)
  for (let i = 0; i < g.ranks.length; i++) if (i !== root) await sendTo(g, i, 0, data!)
  return data!
}
