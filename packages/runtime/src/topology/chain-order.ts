import { runChainOrders } from '@codebook/shared'
import type { Rng } from '../random/rng.ts'

/** How a chain broadcast orders its members. */
export const chainOrderKinds = runChainOrders
export type ChainOrderKind = (typeof chainOrderKinds)[number]

/**
 * The chain order of p group members, root first, as group indices.
 * - `rank`: root, root + 1, …, wrapping around.
 * - `topology`: racks contiguous, so a chain over R racks crosses rack boundaries exactly R − 1
 *   times: the root's rack first, then the other racks in order of their lowest member (from the
 *   root, wrapping), members of a rack in rank order.
 * - `random`: root, then a seeded shuffle of the others (the papers' baseline a rack-aware order beats).
 *
 * @param racks rack name of each group member (index = group index)
 */
export function chainOrder(
  kind: ChainOrderKind,
  racks: readonly string[],
  root: number,
  rng?: Rng,
): number[] {
  const p = racks.length
  const byRank = Array.from({ length: p }, (_, i) => (root + i) % p)
  if (kind === 'rank') return byRank
  if (kind === 'random') {
    if (!rng) throw new Error('a random chain order needs an rng')
    const rest = byRank.slice(1)
    for (let i = rest.length - 1; i > 0; i--) {
      const j = rng.int(i + 1)
      ;[rest[i], rest[j]] = [rest[j]!, rest[i]!]
    }
    return [root, ...rest]
  }
  const groups = new Map<string, number[]>()
  for (const i of byRank) {
    const rack = racks[i]!
    let g = groups.get(rack)
    if (!g) groups.set(rack, (g = []))
    g.push(i)
  }
  return [...groups.values()].flat()
}

/** Number of rack boundaries a chain in `order` crosses. */
export function rackCrossings(order: readonly number[], racks: readonly string[]): number {
  let n = 0
  for (let i = 1; i < order.length; i++) if (racks[order[i]!] !== racks[order[i - 1]!]) n++
  return n
}
