import { describe, expect, it } from 'vitest'
import { GammaDistribution } from '../../random/gamma.ts'
import { binomialPlan, fibonacciPlan, type ReductionPlan } from '../plans.ts'
import { createReductionPlayer } from './algorithms.ts'
import { GammaInstanceCosts, MatrixCosts } from './costs.ts'

const log2ceil = (n: number) => Math.ceil(Math.log2(n))

/** Links of the plan's tree cost Δ, every other link 1; ⊕ is free. */
function slowTreeLinks(plan: ReductionPlan, delta: number): MatrixCosts {
  const costs = MatrixCosts.uniform(plan.n, 1, 0)
  for (const r of plan.ranks)
    if (r.sendTo !== null) costs.communicationMatrix[r.rank * plan.n + r.sendTo] = delta
  return costs
}

/** The same instance with ranks renumbered i → n − 1 − i. */
function reversed(costs: MatrixCosts): MatrixCosts {
  const n = costs.n
  const matrix = new Float64Array(n * n)
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) matrix[i * n + j] = costs.communicationMatrix[(n - 1 - i) * n + (n - 1 - j)]!
  return new MatrixCosts(n, matrix, costs.computationCosts.slice().reverse())
}

/**
 * An optimal schedule when ⊕ is free and every link costs ≥ d_min takes ≥ ⌈log₂ n⌉·d_min (a
 * partial result at most doubles its values per transfer). Binomial-stat on the reversed
 * numbering sends low → high ranks only, never over a slow link of a tree whose children
 * outrank their parents: it meets that bound, so OPT = ⌈log₂ n⌉ on these instances.
 */
function optimum(costs: MatrixCosts): number {
  const witness = createReductionPlayer('binomial', costs.n).play(reversed(costs))
  expect(witness).toBe(log2ceil(costs.n))
  return witness
}

/**
 * Tree-dyn's bound: at most ⌈log₂ n⌉·(d_max + c_max). With V partial values (a process in a
 * receive or ⊕ counts two), at most one waits, so half of them complete a merge within
 * d_max + c_max: V at least halves each such window.
 */
function treeDynBound(costs: MatrixCosts): number {
  const n = costs.n
  let dMax = 0
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) if (i !== j) dMax = Math.max(dMax, costs.communication(i, j))
  return log2ceil(n) * (dMax + Math.max(0, ...costs.computationCosts))
}

describe("Table 1's worst cases", () => {
  for (const delta of [3, 10])
    for (const n of [2, 3, 4, 5, 6, 7, 8, 9, 16, 64]) {
      it(`Binomial-stat, Δ = ${delta}, n = ${n}: Δ·⌈log₂ n⌉ against an optimum of ⌈log₂ n⌉`, () => {
        const costs = slowTreeLinks(binomialPlan(n), delta)
        const binomial = createReductionPlayer('binomial', n).play(costs)
        expect(binomial).toBe(delta * log2ceil(n))
        expect(binomial / optimum(costs)).toBe(delta)
        expect(createReductionPlayer('tree-dyn', n).play(costs)).toBeLessThanOrEqual(treeDynBound(costs))
      })
    }

  // Fibonacci-stat's transfer depth with free ⊕ (its root receives k times): hand-worked.
  const fibonacciDepth: Record<number, number> = { 2: 1, 3: 2, 5: 3, 8: 4, 9: 5, 64: 9 }
  for (const [n, depth] of Object.entries(fibonacciDepth).map(([n, d]) => [Number(n), d] as const))
    it(`Fibonacci-stat, Δ = 10, n = ${n}: Δ·${depth} against an optimum of ⌈log₂ n⌉ (ratio ≥ Δ)`, () => {
      const costs = slowTreeLinks(fibonacciPlan(n), 10)
      const fibonacci = createReductionPlayer('fibonacci', n).play(costs)
      expect(fibonacci).toBe(10 * depth)
      expect(fibonacci / optimum(costs)).toBeGreaterThanOrEqual(10)
      expect(createReductionPlayer('tree-dyn', n).play(costs)).toBeLessThanOrEqual(treeDynBound(costs))
    })

  it("Tree-dyn's bound holds on random heterogeneous instances", () => {
    for (let i = 0; i < 60; i++) {
      const n = 2 + (i % 24)
      const cv = [0.3, 1, 3][i % 3]!
      const draws = new GammaInstanceCosts(n, new GammaDistribution(1, cv), new GammaDistribution(i % 4, cv))
      draws.setInstance(5, i)
      const costs = draws.toMatrix()
      expect(createReductionPlayer('tree-dyn', n).play(costs)).toBeLessThanOrEqual(treeDynBound(costs) + 1e-9)
    }
  })
})
