import { describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { createPartials, denseBytes, encodeBlock, mergeBlock, sparseBytes } from './partials.ts'

describe('partials codec', () => {
  it('round-trips sparse and dense blocks, picks the smaller form, and merges by adding', () => {
    const rng = createRng(8)
    const k = 50
    const d = 3
    for (const touchedEvery of [1, 2, 7, 50]) {
      const src = createPartials(k, d)
      for (let j = 0; j < k; j += touchedEvery) {
        src.counts[j] = 1 + rng.int(5)
        for (let t = 0; t < d; t++) src.sums[j * d + t] = rng.normal()
      }
      const dst = createPartials(k, d)
      dst.counts.fill(1)
      dst.sums.fill(0.5)
      const from = 5
      const to = 45
      const enc = encodeBlock(src, from, to)
      let touched = 0
      for (let j = from; j < to; j++) if (src.counts[j]! > 0) touched++
      expect(enc.bytes.length).toBe(Math.min(sparseBytes(touched, d), denseBytes(to - from, d)))
      expect(enc.sparse).toBe(sparseBytes(touched, d) < denseBytes(to - from, d))
      mergeBlock(dst, enc.bytes)
      for (let j = 0; j < k; j++) {
        const inBlock = j >= from && j < to
        expect(dst.counts[j]).toBe(1 + (inBlock ? src.counts[j]! : 0))
        for (let t = 0; t < d; t++)
          expect(dst.sums[j * d + t]).toBe(0.5 + (inBlock ? src.sums[j * d + t]! : 0))
      }
    }
  })
})
