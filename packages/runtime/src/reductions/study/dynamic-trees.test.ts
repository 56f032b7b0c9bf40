import { describe, expect, it } from 'vitest'
import { createReductionPlayer } from './algorithms.ts'
import { MatrixCosts } from './costs.ts'
import type { ReductionPlayer } from './player.ts'

/** Who sent to whom in the last play: sendTo[rank], null for the root. */
function sendTo(player: ReductionPlayer): (number | null)[] {
  const parents: (number | null)[] = new Array(player.n).fill(null)
  for (let k = 0; k < player.n - 1; k++) parents[player.merges[2 * k + 1]!] = player.merges[2 * k]!
  return parents
}

// Transfers cost 1, ⊕ is free; simultaneous events go by rank. Worked by hand, e.g. Tree-dyn on
// 5: at 0, 1 → 0 and 3 → 2 while 4 waits; at 1, 0 is ready and sends to the waiting 4, then 2
// waits; at 2, 4 sends to 2. Non-Commut-Tree-dyn on 5: at 1, 0 waits (2 is busy), then 2 finds
// both neighbours waiting and sends to 4, which has waited since 0; at 2, 4 sends to 0.
const treeDyn: Record<number, (number | null)[]> = {
  2: [null, 0],
  3: [2, 0, null],
  4: [null, 0, 0, 2],
  5: [4, 0, null, 2, 2],
  6: [4, 0, 0, 2, null, 4],
  7: [6, 0, null, 2, 2, 4, 2],
  8: [null, 0, 0, 2, 0, 4, 4, 6],
  9: [8, 0, 6, 2, 2, 4, 8, 6, null],
}
const nonCommutTreeDyn: Record<number, (number | null)[]> = {
  2: [null, 0],
  3: [2, 0, null],
  4: [null, 0, 0, 2],
  5: [null, 0, 4, 2, 0],
  6: [4, 0, 0, 2, null, 4],
  7: [null, 0, 0, 2, 6, 4, 0],
  8: [null, 0, 0, 2, 0, 4, 4, 6],
  9: [4, 0, 0, 2, 8, 4, 8, 6, null],
}

describe('dynamic trees on uniform costs: hand-worked', () => {
  for (const [algorithm, expected] of [
    ['tree-dyn', treeDyn],
    ['noncommut-tree-dyn', nonCommutTreeDyn],
  ] as const)
    for (const [n, parents] of Object.entries(expected))
      it(`${algorithm}, n = ${n}: who sends to whom, done at ⌈log₂ n⌉`, () => {
        const player = createReductionPlayer(algorithm, Number(n))
        expect(player.play(MatrixCosts.uniform(Number(n), 1, 0))).toBe(Math.ceil(Math.log2(Number(n))))
        expect(sendTo(player)).toEqual(parents)
      })
})
