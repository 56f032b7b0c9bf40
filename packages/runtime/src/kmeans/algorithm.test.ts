import { describe, expect, it } from 'vitest'
import { chooseAlgorithm } from './algorithm.ts'

describe('chooseAlgorithm', () => {
  it('auto: lloyd below k = 64, hamerly below 2000, yinyang above unless n·t bounds exceed 2^27', () => {
    expect(chooseAlgorithm('auto', 63, 1e6)).toBe('lloyd')
    expect(chooseAlgorithm('auto', 64, 1e6)).toBe('hamerly')
    expect(chooseAlgorithm('auto', 1999, 1e6)).toBe('hamerly')
    expect(chooseAlgorithm('auto', 2000, 1e5)).toBe('yinyang')
    // 1e6 points × 200 groups = 2e8 > 2^27 ≈ 1.34e8 float64 bounds.
    expect(chooseAlgorithm('auto', 2000, 1e6)).toBe('hamerly')
    expect(chooseAlgorithm('auto', 100_000, 1e4)).toBe('yinyang')
  })

  it('passes explicit choices through and refuses unknown names', () => {
    expect(chooseAlgorithm('yinyang', 2, 10)).toBe('yinyang')
    expect(chooseAlgorithm('lloyd', 5000, 10)).toBe('lloyd')
    expect(() => chooseAlgorithm('elkan' as 'lloyd', 5, 10)).toThrow(/KMEANS_BAD_ALGORITHM|not one of/)
  })
})
