import { describe, expect, it } from 'vitest'
import { CodebookError } from '../errors.ts'
import {
  binomialPlan,
  fibonacciOrder,
  fibonacciPlan,
  fibonacciTreeSize,
  type ReductionPlan,
} from './plans.ts'

const parents = (plan: ReductionPlan) => plan.ranks.map((r) => r.sendTo)
const receives = (plan: ReductionPlan) => plan.ranks.map((r) => r.receiveFrom)

/** Plays the plan with string concatenation (non-commutative): leaves first, receives in order. */
function foldInPlanOrder(plan: ReductionPlan): string {
  const value = (rank: number): string =>
    plan.ranks[rank]!.receiveFrom.reduce((acc, child) => `${acc},${value(child)}`, String(rank))
  return value(0)
}

describe('binomialPlan: hand-worked trees', () => {
  // Rank i sends to i with its lowest set bit cleared; receives in rounds 1, 2, 4, 8.
  const expected: Record<number, (number | null)[]> = {
    2: [null, 0],
    3: [null, 0, 0],
    4: [null, 0, 0, 2],
    5: [null, 0, 0, 2, 0],
    6: [null, 0, 0, 2, 0, 4],
    7: [null, 0, 0, 2, 0, 4, 4],
    8: [null, 0, 0, 2, 0, 4, 4, 6],
    9: [null, 0, 0, 2, 0, 4, 4, 6, 0],
  }
  for (const [n, sendTo] of Object.entries(expected))
    it(`n = ${n}: who sends to whom`, () => expect(parents(binomialPlan(Number(n)))).toEqual(sendTo))

  it('n = 9: receive order by round, intervals', () => {
    const plan = binomialPlan(9)
    expect(receives(plan)).toEqual([[1, 2, 4, 8], [], [3], [], [5, 6], [], [7], [], []])
    expect(plan.ranks.map((r) => [r.first, r.end])).toEqual([
      [0, 9],
      [1, 2],
      [2, 4],
      [3, 4],
      [4, 8],
      [5, 6],
      [6, 8],
      [7, 8],
      [8, 9],
    ])
  })
})

describe('fibonacciPlan: hand-worked trees', () => {
  it('tree sizes F_(k+2) and the order chosen for n', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(fibonacciTreeSize)).toEqual([1, 2, 3, 5, 8, 13, 21])
    expect([1, 2, 3, 4, 5, 6, 8, 9, 13, 14, 64].map(fibonacciOrder)).toEqual([
      0, 1, 2, 3, 3, 4, 4, 5, 5, 6, 9,
    ])
  })

  // FS_4 on 8 ranks = FS_3 on 0…4 (FS_2 on 0…2 = {1→0, 2→0}, FS_1 on 3…4 = {4→3}, then 3→0)
  // + FS_2 on 5…7 (6→5, 7→5), then 5→0. Other n keep the first n ranks of the smallest FS_k.
  const expected: Record<number, { sendTo: (number | null)[]; receiveFrom: number[][] }> = {
    1: { sendTo: [null], receiveFrom: [[]] },
    2: { sendTo: [null, 0], receiveFrom: [[1], []] },
    3: { sendTo: [null, 0, 0], receiveFrom: [[1, 2], [], []] },
    4: { sendTo: [null, 0, 0, 0], receiveFrom: [[1, 2, 3], [], [], []] },
    5: { sendTo: [null, 0, 0, 0, 3], receiveFrom: [[1, 2, 3], [], [], [4], []] },
    6: { sendTo: [null, 0, 0, 0, 3, 0], receiveFrom: [[1, 2, 3, 5], [], [], [4], [], []] },
    7: { sendTo: [null, 0, 0, 0, 3, 0, 5], receiveFrom: [[1, 2, 3, 5], [], [], [4], [], [6], []] },
    8: {
      sendTo: [null, 0, 0, 0, 3, 0, 5, 5],
      receiveFrom: [[1, 2, 3, 5], [], [], [4], [], [6, 7], [], []],
    },
    9: {
      sendTo: [null, 0, 0, 0, 3, 0, 5, 5, 0],
      receiveFrom: [[1, 2, 3, 5, 8], [], [], [4], [], [6, 7], [], [], []],
    },
  }
  for (const [n, tree] of Object.entries(expected))
    it(`n = ${n}: who sends to whom, in which order`, () => {
      const plan = fibonacciPlan(Number(n))
      expect(parents(plan)).toEqual(tree.sendTo)
      expect(receives(plan)).toEqual(tree.receiveFrom)
    })
})

describe('both plans', () => {
  for (const build of [binomialPlan, fibonacciPlan])
    it(`${build.name}: a non-commutative fold in receive order gives rank order, every rank sends once`, () => {
      for (let n = 1; n <= 100; n++) {
        const plan = build(n)
        expect(foldInPlanOrder(plan)).toBe(Array.from({ length: n }, (_, i) => i).join(','))
        expect(plan.ranks.filter((r) => r.sendTo === null).map((r) => r.rank)).toEqual([0])
        expect(plan.ranks[0]).toMatchObject({ first: 0, end: n })
      }
    })

  it('refuse a process count that is not a whole number ≥ 1 with a coded error', () => {
    for (const bad of [0, -1, 2.5, Number.NaN])
      for (const build of [binomialPlan, fibonacciPlan]) {
        let thrown: unknown
        try {
          build(bad)
        } catch (error) {
          thrown = error
        }
        expect(thrown).toBeInstanceOf(CodebookError)
        expect((thrown as CodebookError).code).toBe('BAD_PROCESS_COUNT')
      }
  })
})
