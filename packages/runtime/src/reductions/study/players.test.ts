import { describe, expect, it } from 'vitest'
import { GammaDistribution } from '../../random/gamma.ts'
import { binomialPlan, fibonacciPlan, fibonacciTreeSize } from '../plans.ts'
import { createReductionPlayer, rankOrderedReductions, reductionAlgorithms } from './algorithms.ts'
import { GammaInstanceCosts, MatrixCosts, type ReductionCosts } from './costs.ts'
import type { ReductionPlayer } from './player.ts'

const log2ceil = (n: number) => Math.ceil(Math.log2(n))

/** Random instances with every kind of cost, as matrices (so the references see the same numbers). */
function* randomInstances(count: number, maxN: number): Generator<MatrixCosts> {
  for (let i = 0; i < count; i++) {
    const n = 1 + (i % maxN)
    const cv = [0.1, 1, 3][i % 3]!
    const costs = new GammaInstanceCosts(n, new GammaDistribution(1, cv), new GammaDistribution(i % 2, cv))
    costs.setInstance(99, i)
    yield costs.toMatrix()
  }
}

/** Replays a play's merges with string concatenation, checking each ⊕ joins adjacent intervals. */
function foldMerges(player: ReductionPlayer): { result: string; allAdjacent: boolean; sends: number[] } {
  const n = player.n
  const held: number[][] = Array.from({ length: n }, (_, r) => [r])
  const sends = new Array(n).fill(0)
  let allAdjacent = true
  for (let k = 0; k < n - 1; k++) {
    const [receiver, sender] = [player.merges[2 * k]!, player.merges[2 * k + 1]!]
    const [mine, theirs] = [held[receiver]!, held[sender]!]
    const joined = mine[0]! < theirs[0]! ? [...mine, ...theirs] : [...theirs, ...mine]
    allAdjacent &&= joined.every((r, i) => i === 0 || r === joined[i - 1]! + 1)
    held[receiver] = joined
    held[sender] = []
    sends[sender]++
  }
  return { result: held.filter((h) => h.length > 0).map((h) => h.join(','))[0] ?? '', allAdjacent, sends }
}

describe('players: closed forms on uniform costs', () => {
  it('binomial and tree-dyn take ⌈log₂ n⌉ transfers when ⊕ is free; fibonacci is slower', () => {
    for (let n = 1; n <= 70; n++) {
      const costs = MatrixCosts.uniform(n, 1, 0)
      expect(createReductionPlayer('binomial', n).play(costs)).toBe(log2ceil(n))
      expect(createReductionPlayer('tree-dyn', n).play(costs)).toBe(log2ceil(n))
      expect(createReductionPlayer('fibonacci', n).play(costs)).toBeGreaterThanOrEqual(log2ceil(n))
    }
  })

  it('Fibonacci-stat on F_(k+2) processes with ⊕ = transfer = 1 finishes at k + 1 (the receive overlaps the ⊕)', () => {
    for (let k = 1; k <= 7; k++) {
      const n = fibonacciTreeSize(k)
      expect(createReductionPlayer('fibonacci', n).play(MatrixCosts.uniform(n, 1, 1))).toBe(k + 1)
    }
    // Binomial-stat pays transfer + ⊕ per round there: 2·log₂ n on 8 processes, vs 5 for FS_4.
    expect(createReductionPlayer('binomial', 8).play(MatrixCosts.uniform(8, 1, 1))).toBe(6)
  })
})

describe('players: the combine order', () => {
  it('every algorithm reduces all n values, each process sending once, the root last', () => {
    for (const costs of randomInstances(60, 20))
      for (const algorithm of reductionAlgorithms) {
        const player = createReductionPlayer(algorithm, costs.n)
        player.play(costs)
        const { result, sends } = foldMerges(player)
        expect(
          result
            .split(',')
            .map(Number)
            .sort((a, b) => a - b),
        ).toEqual(Array.from({ length: costs.n }, (_, i) => i))
        expect(sends.filter((s) => s === 1).length).toBe(costs.n - 1)
        expect(sends.every((s) => s <= 1)).toBe(true)
      }
  })

  it('binomial, fibonacci and noncommut-tree-dyn join adjacent intervals only: a non-commutative ⊕ stays in rank order', () => {
    for (const costs of randomInstances(90, 30))
      for (const algorithm of rankOrderedReductions) {
        const player = createReductionPlayer(algorithm, costs.n)
        player.play(costs)
        const { result, allAdjacent } = foldMerges(player)
        expect(allAdjacent).toBe(true)
        expect(result).toBe(Array.from({ length: costs.n }, (_, i) => i).join(','))
      }
  })

  it('tree-dyn does interleave intervals on some instance (why it is for a commutative ⊕ only)', () => {
    const interleaved = [...randomInstances(60, 20)].some((costs) => {
      const player = createReductionPlayer('tree-dyn', costs.n)
      player.play(costs)
      return !foldMerges(player).allAdjacent
    })
    expect(interleaved).toBe(true)
  })
})

// Second implementations: plain arrays and linear scans, no heap, no interval index.

function referenceStatic(receives: number[][], costs: ReductionCosts): number {
  const finish = (rank: number): number => {
    let receiveFree = 0
    let computeFree = 0
    for (const child of receives[rank]!) {
      receiveFree = Math.max(finish(child), receiveFree) + costs.communication(child, rank)
      computeFree = Math.max(receiveFree, computeFree) + costs.computation(rank)
    }
    return computeFree
  }
  return finish(0)
}

/** Both dynamic algorithms by scanning: `partnerOf` picks the waiting partner of a ready process, or −1. */
function referenceDynamic(costs: ReductionCosts, nonCommutative: boolean): number {
  const n = costs.n
  // Intervals in rank order: holder, ready time (Infinity while busy until scheduled), waiting since.
  const intervals = Array.from({ length: n }, (_, r) => ({ holder: r, readyAt: 0, waitingSince: Number.NaN }))
  let treeDynWaiting = -1
  for (;;) {
    let next = -1
    intervals.forEach((iv, i) => {
      if (Number.isNaN(iv.readyAt)) return
      const best = intervals[next]
      if (!best || iv.readyAt < best.readyAt || (iv.readyAt === best.readyAt && iv.holder < best.holder))
        next = i
    })
    const me = intervals[next]!
    const time = me.readyAt
    me.readyAt = Number.NaN
    if (intervals.length === 1) return time
    let partner = -1
    if (nonCommutative) {
      const left = intervals[next - 1]
      const right = intervals[next + 1]
      const leftWaits = left !== undefined && !Number.isNaN(left.waitingSince)
      const rightWaits = right !== undefined && !Number.isNaN(right.waitingSince)
      if (leftWaits && (!rightWaits || left.waitingSince <= right!.waitingSince)) partner = next - 1
      else if (rightWaits) partner = next + 1
    } else if (treeDynWaiting >= 0) {
      partner = intervals.findIndex((iv) => iv.holder === treeDynWaiting)
      treeDynWaiting = -1
    }
    if (partner < 0) {
      me.waitingSince = time
      if (!nonCommutative) treeDynWaiting = me.holder
      continue
    }
    const receiver = intervals[partner]!
    receiver.waitingSince = Number.NaN
    receiver.readyAt =
      time + costs.communication(me.holder, receiver.holder) + costs.computation(receiver.holder)
    intervals.splice(next, 1)
  }
}

describe('players against second implementations', () => {
  it('static plays equal a recursive evaluation of the plan', () => {
    for (const costs of randomInstances(120, 40))
      for (const plan of [binomialPlan(costs.n), fibonacciPlan(costs.n)]) {
        const expected = referenceStatic(
          plan.ranks.map((r) => r.receiveFrom),
          costs,
        )
        expect(createReductionPlayer(plan.algorithm, costs.n).play(costs)).toBe(expected)
      }
  })

  it('dynamic plays equal a linear-scan simulation', () => {
    for (const costs of randomInstances(120, 40)) {
      expect(createReductionPlayer('tree-dyn', costs.n).play(costs)).toBe(referenceDynamic(costs, false))
      expect(createReductionPlayer('noncommut-tree-dyn', costs.n).play(costs)).toBe(
        referenceDynamic(costs, true),
      )
    }
  })

  it('a player replays the same instance to the same makespan (no state leaks between runs)', () => {
    const instances = [...randomInstances(10, 16)].filter((c) => c.n === 10)
    for (const algorithm of reductionAlgorithms) {
      const player = createReductionPlayer(algorithm, 10)
      const first = instances.map((c) => player.play(c))
      expect(instances.map((c) => player.play(c))).toEqual(first)
    }
  })
})
