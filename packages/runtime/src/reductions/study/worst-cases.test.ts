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

// Table 1's columns with computation: "any c" (Theorems 3 and 5) and "c = d" (Theorems 4 and 5).
// The proofs are in the companion report (RR-8315), not in the paper; the bounds below follow
// the route of Theorem 2's proof: an upper bound on the algorithm's makespan over a lower bound
// on the optimum, with every ⊕ costing the same c and every link between d and D = Δ·d.

/** log₂ φ ≈ 0.694, φ the golden ratio. */
const LOG2_PHI = Math.log2((1 + Math.sqrt(5)) / 2)

/** F_m with F_1 = F_2 = 1, computed here rather than taken from plans.ts. */
function fib(m: number): number {
  let [a, b] = [0, 1] // F_0, F_1
  for (let i = 0; i < m; i++) [a, b] = [b, a + b]
  return a
}

/** The order k of the Fibonacci schedule for n processes: the smallest k with F_(k+2) ≥ n. */
function fibonacciOrderOf(n: number): number {
  let k = 0
  while (fib(k + 2) < n) k++
  return k
}

/**
 * The paper's Theorem 1 instance with a computation cost: d(i→j) = 1 for i < j, Δ for i > j,
 * and every ⊕ costs c. Both static trees (children outrank parents) pay Δ on every transfer;
 * their reversed numberings pay 1.
 */
function downhillSlow(n: number, delta: number, c: number): MatrixCosts {
  const costs = MatrixCosts.uniform(n, 1, c)
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) costs.communicationMatrix[i * n + j] = delta
  return costs
}

/**
 * A lower bound on any schedule when every ⊕ costs c and every link ≥ d: ⌈log₂ n⌉·max(d, c).
 * Free ⊕ can only make a schedule faster, and then it needs ⌈log₂ n⌉·d (a partial result at most
 * doubles per transfer); and some value goes through ⌈log₂ n⌉ ⊕, each after the previous one
 * (a binary merge tree of n leaves has a leaf that deep).
 */
const anyCLowerBound = (n: number, d: number, c: number) => log2ceil(n) * Math.max(d, c)

/**
 * A lower bound on any schedule when every ⊕ costs 1 and every link ≥ 1: a result holding m > 1
 * values at time t comes out of a ⊕ started by t − 1 on a result held then and one sent by
 * t − 2, so m ≤ N(t − 1) + N(t − 2) with N = 1 below t = 2: N(t) = F_(t+1), and no schedule
 * ends before the smallest t with F_(t+1) ≥ n, which is k + 1. Fibonacci-stat meets it on 1-links.
 */
function unitLowerBound(n: number): number {
  let t = 0
  while (fib(t + 1) < n) t++
  return t
}

/** The makespan of a static algorithm on the instance renumbered i → n − 1 − i. */
const playReversed = (algorithm: 'binomial' | 'fibonacci', costs: MatrixCosts) =>
  createReductionPlayer(algorithm, costs.n).play(reversed(costs))

const isPowerOfTwo = (n: number) => (n & (n - 1)) === 0
const sizes = [2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 21, 33, 64]

describe("Table 1's worst cases with computation", () => {
  for (const delta of [3, 10])
    for (const c of [0.25, 1, 4, 30])
      it(`Theorem 3 (any c): Binomial-stat and Tree-dyn within Δ + 1, Δ = ${delta}, c = ${c}`, () => {
        for (const n of sizes) {
          const costs = downhillSlow(n, delta, c)
          const lower = anyCLowerBound(n, 1, c)
          const binomial = createReductionPlayer('binomial', n).play(costs)
          // ⌈log₂ n⌉ rounds of one Δ transfer and one ⊕; exactly that when every round is full.
          expect(binomial).toBeLessThanOrEqual(log2ceil(n) * (delta + c))
          if (isPowerOfTwo(n)) expect(binomial).toBe(Math.log2(n) * (delta + c))
          expect(binomial / lower).toBeLessThanOrEqual(delta + 1)
          const treeDyn = createReductionPlayer('tree-dyn', n).play(costs)
          expect(treeDyn).toBeLessThanOrEqual(log2ceil(n) * (delta + c))
          expect(treeDyn / lower).toBeLessThanOrEqual(delta + 1)
        }
      })

  for (const delta of [3, 10])
    it(`Theorem 4 (c = d): Binomial-stat and Tree-dyn within (Δ + 1)(1 + 1/log₂ n)·log₂ φ, Δ = ${delta}`, () => {
      for (const n of sizes) {
        const costs = downhillSlow(n, delta, 1)
        const k = fibonacciOrderOf(n)
        // The optimum: Fibonacci-stat on the reversed numbering (only 1-links) meets the bound.
        const optimum = playReversed('fibonacci', costs)
        expect(unitLowerBound(n)).toBe(k + 1)
        expect(optimum).toBe(k + 1)
        const bound = (delta + 1) * (1 + 1 / Math.log2(n)) * LOG2_PHI
        const binomial = createReductionPlayer('binomial', n).play(costs)
        if (isPowerOfTwo(n)) expect(binomial).toBe(Math.log2(n) * (delta + 1))
        expect(binomial / optimum).toBeLessThanOrEqual(bound)
        const treeDyn = createReductionPlayer('tree-dyn', n).play(costs)
        expect(treeDyn / optimum).toBeLessThanOrEqual(bound)
      }
    })

  for (const delta of [3, 10])
    for (const c of [0, 0.25, 1, 4, 30])
      it(`Theorem 5 (any c): Fibonacci-stat within Δ/log₂ φ + 2Δ/⌈log₂ n⌉, Δ = ${delta}, c = ${c}`, () => {
        for (const n of sizes) {
          const costs = downhillSlow(n, delta, c)
          const k = fibonacciOrderOf(n)
          const fibonacci = createReductionPlayer('fibonacci', n).play(costs)
          // The root receives k times over Δ-links: k·max(Δ, c) + min(Δ, c) (transfers or ⊕ chain).
          expect(fibonacci).toBeCloseTo(k * Math.max(delta, c) + Math.min(delta, c), 9)
          const bound = delta / LOG2_PHI + (2 * delta) / log2ceil(n)
          expect(fibonacci / anyCLowerBound(n, 1, c)).toBeLessThanOrEqual(bound)
        }
      })

  for (const delta of [3, 10])
    it(`Theorem 5 (c = d): Fibonacci-stat within Δ, reaching (kΔ + 1)/(k + 1), Δ = ${delta}`, () => {
      for (const n of sizes) {
        const costs = downhillSlow(n, delta, 1)
        const k = fibonacciOrderOf(n)
        const optimum = playReversed('fibonacci', costs)
        expect(optimum).toBe(unitLowerBound(n))
        const fibonacci = createReductionPlayer('fibonacci', n).play(costs)
        expect(fibonacci).toBe(k * delta + 1)
        expect(fibonacci / optimum).toBe((k * delta + 1) / (k + 1))
        expect(fibonacci / optimum).toBeLessThanOrEqual(delta)
      }
    })

  it('Theorems 3–5 hold on random instances with one computation cost', () => {
    let seed = 12345
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    for (let i = 0; i < 200; i++) {
      const n = 2 + (i % 40)
      const spread = [1.5, 4, 20][i % 3]!
      const d = 0.5 + next()
      const matrix = new Float64Array(n * n)
      for (let j = 0; j < n * n; j++) matrix[j] = d * (1 + (spread - 1) * next())
      const links = [...matrix].filter((_, j) => j % (n + 1) !== 0) // d(i→j) for i ≠ j
      const [dMin, dMax] = [Math.min(...links), Math.max(...links)]
      const delta = dMax / dMin
      const ceil = log2ceil(n)
      // Theorem 3 and 5, any c (c drawn up to 3·d_max).
      const c = 3 * dMax * next()
      const anyC = new MatrixCosts(n, matrix, new Float64Array(n).fill(c))
      const lower = anyCLowerBound(n, dMin, c)
      const eps = 1e-9
      expect(createReductionPlayer('binomial', n).play(anyC)).toBeLessThanOrEqual((delta + 1) * lower + eps)
      expect(createReductionPlayer('tree-dyn', n).play(anyC)).toBeLessThanOrEqual((delta + 1) * lower + eps)
      expect(createReductionPlayer('fibonacci', n).play(anyC)).toBeLessThanOrEqual(
        (delta / LOG2_PHI + (2 * delta) / ceil) * lower + eps,
      )
      // Theorems 4 and 5 with c = d = d_min: the optimum is at least d·(k + 1).
      const cIsD = new MatrixCosts(n, matrix, new Float64Array(n).fill(dMin))
      const unit = dMin * unitLowerBound(n)
      const th4 = (delta + 1) * (1 + 1 / Math.log2(n)) * LOG2_PHI
      expect(createReductionPlayer('binomial', n).play(cIsD)).toBeLessThanOrEqual(th4 * unit + eps)
      expect(createReductionPlayer('tree-dyn', n).play(cIsD)).toBeLessThanOrEqual(th4 * unit + eps)
      expect(createReductionPlayer('fibonacci', n).play(cIsD)).toBeLessThanOrEqual(delta * unit + eps)
    }
  })
})
