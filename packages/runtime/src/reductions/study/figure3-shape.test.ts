import { describe, expect, it } from 'vitest'
import type { ReductionAlgorithm } from './algorithms.ts'
import { playCell, summariseCell } from './run-study.ts'

/** Mean makespan per algorithm of one Figure 3 point (n = 64, μc = 0). */
function means(cv: number, runs: number): Record<ReductionAlgorithm, number> {
  const cell = { n: 64, cv, muC: 0, runs, seed: 1 }
  return Object.fromEntries(summariseCell(cell, playCell(cell)).map((r) => [r.algorithm, r.mean])) as Record<
    ReductionAlgorithm,
    number
  >
}

// Issue 20's targets for the paper's Figure 3 shape, on 3,000 instances a point instead of
// 100,000 (docs/reproductions.md, "Figure 3", has the full run). The algorithms meet the same instances, so
// the comparisons are paired: at CV ≤ 3 the margins (≥ 5 % at CV 3, a steady 0.1 % between
// Binomial-stat and Tree-dyn at CV 0.01) hold for every seed tried; CV 10's heavy tail is
// only checked for the 15 % spread.
describe('the study reproduces the shape of Figure 3 (n = 64, μc = 0)', () => {
  for (const cv of [0.01, 0.3, 1, 3]) {
    it(`CV ${cv}: Tree-dyn lowest, Fibonacci-stat highest`, () => {
      const m = means(cv, 3000)
      const values = Object.values(m)
      expect(m['tree-dyn']).toBe(Math.min(...values))
      expect(m.fibonacci).toBe(Math.max(...values))
      if (cv === 0.01) expect(m.binomial / m['tree-dyn']).toBeLessThan(1.02)
    })
  }

  it('CV 10: all four within 15 % of each other', () => {
    const values = Object.values(means(10, 3000))
    expect(Math.max(...values) / Math.min(...values)).toBeLessThan(1.15)
  })
})
