import { describe, expect, it } from 'vitest'
import { chooseAlgorithm } from './algorithm.ts'

describe('chooseAlgorithm', () => {
  it('auto: lloyd below k = 64, hamerly from there on (whatever k and n)', () => {
    expect(chooseAlgorithm('auto', 63)).toBe('lloyd')
    expect(chooseAlgorithm('auto', 64)).toBe('hamerly')
    expect(chooseAlgorithm('auto', 1999)).toBe('hamerly')
    expect(chooseAlgorithm('auto', 2000)).toBe('hamerly')
    expect(chooseAlgorithm('auto', 100_000)).toBe('hamerly')
  })

  it('passes explicit choices through and refuses unknown names', () => {
    expect(chooseAlgorithm('yinyang', 2)).toBe('yinyang')
    expect(chooseAlgorithm('lloyd', 5000)).toBe('lloyd')
    expect(() => chooseAlgorithm('elkan' as 'lloyd', 5)).toThrow(/KMEANS_BAD_ALGORITHM|not one of/)
  })
})
