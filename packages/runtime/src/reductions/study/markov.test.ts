import { describe, expect, it } from 'vitest'
import { harmonic, markovCheck, paperTreeDynMean, treeDynExponentialMoments } from './markov.ts'

describe('Tree-dyn with exponential costs (Section 3)', () => {
  it('closed forms: hand-worked n = 2 and 4, and 2·H(n/2) − 2/n for even n', () => {
    // n = 2: one transfer, Exp(1). n = 4: two in flight (mean ½), then one, then one: 2.5.
    expect(treeDynExponentialMoments(2)).toEqual({ mean: 1, variance: 1 })
    expect(treeDynExponentialMoments(4).mean).toBeCloseTo(2.5, 12)
    expect(treeDynExponentialMoments(4).variance).toBeCloseTo(2.25, 12)
    for (const n of [2, 8, 64, 1000])
      expect(treeDynExponentialMoments(n).mean).toBeCloseTo(2 * harmonic(n / 2) - 2 / n, 10)
    expect(paperTreeDynMean(4)).toBeCloseTo(3.5, 12)
    expect(paperTreeDynMean(5)).toBeNull()
  })

  it('the simulation agrees with the derived mean and variance, not with the paper’s + 2/n', () => {
    const row = markovCheck(8, 20_000, 3)
    const standardError = Math.sqrt(row.formulaVariance / row.runs)
    expect(Math.abs(row.simulatedMean - row.formulaMean)).toBeLessThan(4 * standardError)
    expect(Math.abs(row.simulatedMean - row.paperFormulaMean!)).toBeGreaterThan(20 * standardError)
    expect(Math.abs(row.simulatedVariance / row.formulaVariance - 1)).toBeLessThan(0.08)
  })
})
