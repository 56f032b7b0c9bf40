import { describe, expect, it } from 'vitest'
import { rankOrderedReductions, reductionAlgorithms } from './algorithms.ts'
import { bestAmong, bestNonCommutative, gridCell } from './grid.ts'

describe('Figure 4 cells', () => {
  it('Figure 4(b) ranks only the three algorithms that accept a non-commutative ⊕', () => {
    expect([...rankOrderedReductions].sort()).toEqual(['binomial', 'fibonacci', 'noncommut-tree-dyn'])
    const means = { binomial: 3, fibonacci: 4, 'tree-dyn': 1, 'noncommut-tree-dyn': 2 }
    expect(bestAmong(means, reductionAlgorithms)).toBe('tree-dyn')
    expect(bestNonCommutative(means)).toBe('noncommut-tree-dyn')
    // Ties go to the earlier algorithm in the runtime's order.
    expect(bestNonCommutative({ ...means, binomial: 2 })).toBe('binomial')
    expect(() => bestAmong(means, [])).toThrow(RangeError)
  })

  it('a cell holds every algorithm’s mean, so both maps come from `means`', () => {
    for (const muC of [0.1, 1, 10]) {
      const cell = gridCell(8, 0.3, muC, 5, 7)
      expect(Object.keys(cell.means).sort()).toEqual([...reductionAlgorithms].sort())
      expect(cell.means[cell.best]).toBe(Math.min(...Object.values(cell.means)))
      const nonCommut = bestNonCommutative(cell.means)
      expect(rankOrderedReductions).toContain(nonCommut)
      expect(cell.means[nonCommut]).toBe(Math.min(...rankOrderedReductions.map((a) => cell.means[a])))
      // Where the overall best accepts a non-commutative ⊕ the two maps agree.
      if (cell.best !== 'tree-dyn') expect(nonCommut).toBe(cell.best)
    }
  })
})
