import { describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { kmeansPlusPlus } from './kmeans-plus-plus.ts'

describe('kmeansPlusPlus', () => {
  it('picks data rows, one from each of k far-apart tight groups (D² sampling), reproducibly', () => {
    const k = 4
    const d = 2
    const per = 50
    const pts = new Float32Array(k * per * d)
    const rng = createRng(2)
    for (let g = 0; g < k; g++)
      for (let i = 0; i < per; i++) {
        pts[(g * per + i) * d] = g * 1000 + rng.next()
        pts[(g * per + i) * d + 1] = rng.next()
      }
    for (let seed = 0; seed < 10; seed++) {
      const c = kmeansPlusPlus(pts, d, k, createRng(seed))
      const groups = new Set(Array.from({ length: k }, (_, j) => Math.round(c[j * d]! / 1000)))
      expect(groups.size).toBe(k)
      expect(kmeansPlusPlus(pts, d, k, createRng(seed))).toEqual(c)
    }
  })

  it('rejects k larger than the number of vectors', () => {
    expect(() => kmeansPlusPlus(new Float32Array(4), 2, 3, createRng(1))).toThrow(/k = 3/)
  })
})
