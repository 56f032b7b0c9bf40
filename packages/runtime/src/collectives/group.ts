import type { DataPlane } from '../transport/data-plane.ts'

/**
 * The participants of one collective call: `ranks[i]` is the global rank of group member i.
 * Every member calls the collective with the same `ranks` and `op`; `op` keys the messages, so
 * concurrent or consecutive collectives never mix.
 */
export interface Group {
  plane: DataPlane
  ranks: readonly number[]
  op: number
  /** Receive timeout per message, ms (undefined waits forever). */
  timeoutMs?: number
}

/** Index of this node in the group. */
export function groupIndex(g: Group): number {
  const i = g.ranks.indexOf(g.plane.rank)
  if (i < 0) throw new Error(`rank ${g.plane.rank} is not in group [${g.ranks.join(',')}]`)
  return i
}

/** Sends bytes [start, end) of `data` to group member `to` as message `step`. */
export function sendTo(
  g: Group,
  to: number,
  step: number,
  data: Uint8Array,
  start?: number,
  end?: number,
): Promise<void> {
  return g.plane.sendRange(g.ranks[to]!, g.op, step, data, start, end)
}

/** Receives message `step` from group member `from`, into `dest` if given. */
export function recvFrom(g: Group, from: number, step: number, dest?: Uint8Array): Promise<Uint8Array> {
  return g.plane.recv(g.ranks[from]!, g.op, step, dest, g.timeoutMs)
}

/** Splits n bytes into p contiguous blocks whose sizes differ by at most `align` bytes; returns p + 1 bounds. */
export function blockBounds(n: number, p: number, align = 1): number[] {
  const units = Math.floor(n / align)
  const bounds = [0]
  for (let i = 1; i <= p; i++) bounds.push(i === p ? n : Math.floor((units * i) / p) * align)
  return bounds
}
