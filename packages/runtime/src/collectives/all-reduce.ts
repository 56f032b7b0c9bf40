import { blockBounds, type Group, groupIndex, recvFrom, sendTo } from './group.ts'

function bytesOf(a: Float64Array, from: number, to: number): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset + from * 8, (to - from) * 8)
}

/**
 * Ring reduce-scatter of a float64 vector summed element-wise: after p − 1 steps member i holds
 * the complete sum of block (i + 1) mod p (blocks by {@link blockBounds}); other blocks hold
 * partial sums. Each member sends (p − 1)/p of the vector. `data` is reduced in place.
 * Returns the block member i owns.
 */
export async function reduceScatterRing(g: Group, data: Float64Array, stepBase = 0): Promise<number> {
  const p = g.ranks.length
  const me = groupIndex(g)
  const b = blockBounds(data.length, p)
  const next = (me + 1) % p
  const prev = (me - 1 + p) % p
  for (let s = 0; s < p - 1; s++) {
    const sendBlock = (me - s + p) % p
    const recvBlock = (me - s - 1 + p) % p
    const [, got] = await Promise.all([
      sendTo(g, next, stepBase + s, bytesOf(data, b[sendBlock]!, b[sendBlock + 1]!)),
      recvFrom(g, prev, stepBase + s),
    ])
    const incoming = new Float64Array(got.buffer, got.byteOffset, got.byteLength / 8)
    const off = b[recvBlock]!
    for (let t = 0; t < incoming.length; t++) data[off + t] += incoming[t]!
  }
  return (me + 1) % p
}

/**
 * Ring all-gather of the blocks of a float64 vector after {@link reduceScatterRing}: member i
 * contributes block (i + 1) mod p; in place.
 */
export async function allGatherBlocksRing(g: Group, data: Float64Array, stepBase = 0): Promise<void> {
  const p = g.ranks.length
  const me = groupIndex(g)
  const b = blockBounds(data.length, p)
  const next = (me + 1) % p
  const prev = (me - 1 + p) % p
  const bytes = bytesOf(data, 0, data.length)
  for (let s = 0; s < p - 1; s++) {
    const sendBlock = (me + 1 - s + p) % p
    await Promise.all([
      sendTo(g, next, stepBase + s, bytes, b[sendBlock]! * 8, b[sendBlock + 1]! * 8),
      // Block (me − s) mod p arrives with its offsets and lands in place.
      recvFrom(g, prev, stepBase + s, bytes),
    ])
  }
}

/**
 * All-reduce (sum) of a float64 vector by ring reduce-scatter then ring all-gather: every member
 * sends 2(p − 1)/p of the vector, the bandwidth-optimal figure (busbw = algbw·2(p−1)/p). Every
 * member ends with bit-identical sums, because each block is summed once, by its owner's ring.
 * `data` is reduced in place and returned.
 */
export async function allReduceSum(g: Group, data: Float64Array): Promise<Float64Array> {
  if (g.ranks.length === 1) return data
  await reduceScatterRing(g, data, 0)
  await allGatherBlocksRing(g, data, 0x8000)
  return data
}
