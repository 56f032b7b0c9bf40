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

  it('sends integer values as int32 (exact, half the value bytes) and anything else as float64', () => {
    const k = 20
    const d = 4
    const ints = createPartials(k, d)
    for (let j = 0; j < k; j += 2) {
      ints.counts[j] = 3 + j
      for (let t = 0; t < d; t++) ints.sums[j * d + t] = (j - 10) * 1000 + t * 255
    }
    // The largest exact int32 and a value just beyond it.
    ints.sums[0] = 2 ** 31 - 1
    const enc = encodeBlock(ints, 0, k)
    expect(enc.bytes.length).toBe(Math.min(sparseBytes(k / 2, d, true), denseBytes(k, d, true)))
    expect(enc.savedBytes).toBe(Math.min(sparseBytes(k / 2, d), denseBytes(k, d)) - enc.bytes.length)
    const back = createPartials(k, d)
    mergeBlock(back, enc.bytes)
    expect(Array.from(back.sums)).toEqual(Array.from(ints.sums))
    expect(Array.from(back.counts)).toEqual(Array.from(ints.counts))

    for (const odd of [2 ** 31, 0.5, -(2 ** 31)]) {
      const p = createPartials(k, d)
      p.sums.set(ints.sums)
      p.counts.set(ints.counts)
      p.sums[5] = odd
      p.counts[1] = 1
      const e = encodeBlock(p, 0, k)
      expect(e.savedBytes, String(odd)).toBe(0)
      const q = createPartials(k, d)
      mergeBlock(q, e.bytes)
      expect(Array.from(q.sums)).toEqual(Array.from(p.sums))
    }
  })

  it('float32 partials: each sum rounded once (relative error ≤ 2⁻²⁴), counts exact, integer blocks still int32', () => {
    const k = 40
    const d = 5
    const rng = createRng(21)
    const p = createPartials(k, d)
    for (let j = 0; j < k; j += 3) {
      p.counts[j] = 1 + rng.int(1000)
      // Values far from float32-representable: large magnitudes with a fractional tail.
      for (let t = 0; t < d; t++) p.sums[j * d + t] = (rng.next() - 0.5) * 10 ** (1 + rng.int(12)) + Math.PI
    }
    const enc = encodeBlock(p, 0, k, 'float32')
    const touched = Math.ceil(k / 3)
    expect(enc.bytes.length).toBe(Math.min(sparseBytes(touched, d, 'float32'), denseBytes(k, d, 'float32')))
    expect(enc.savedBytes).toBe(Math.min(sparseBytes(touched, d), denseBytes(k, d)) - enc.bytes.length)
    const back = createPartials(k, d)
    mergeBlock(back, enc.bytes)
    expect(Array.from(back.counts)).toEqual(Array.from(p.counts))
    let rounded = 0
    for (let i = 0; i < p.sums.length; i++) {
      const v = p.sums[i]!
      // Round to nearest: |fl32(v) − v| ≤ 2⁻²⁴·|v| (independent check: Math.fround).
      expect(back.sums[i]).toBe(Math.fround(v))
      expect(Math.abs(back.sums[i]! - v)).toBeLessThanOrEqual(2 ** -24 * Math.abs(v))
      if (back.sums[i] !== v) rounded++
    }
    expect(rounded).toBeGreaterThan(0)
    // The same block in exact mode is float64 and lossless.
    const exact = createPartials(k, d)
    mergeBlock(exact, encodeBlock(p, 0, k).bytes)
    expect(Array.from(exact.sums)).toEqual(Array.from(p.sums))

    // Integer sums stay int32 (exact) in float32 mode.
    const ints = createPartials(k, d)
    ints.counts[3] = 7
    ints.sums.fill(0).fill(1234, 15, 20)
    const e = encodeBlock(ints, 0, k, 'float32')
    expect(e.bytes.length).toBe(Math.min(sparseBytes(1, d, 'int32'), denseBytes(k, d, 'int32')))

    // A count beyond 2²⁴ or a sum beyond float32's range cannot go as float32: float64, lossless.
    for (const [what, set] of [
      ['count 2²⁴ + 1', (q: typeof p) => (q.counts[0] = 2 ** 24 + 1)],
      ['sum 1e39', (q: typeof p) => (q.sums[0] = 1e39)],
    ] as const) {
      const q = createPartials(k, d)
      q.sums.set(p.sums)
      q.counts.set(p.counts)
      set(q)
      const f = encodeBlock(q, 0, k, 'float32')
      expect(f.savedBytes, what).toBe(0)
      const r = createPartials(k, d)
      mergeBlock(r, f.bytes)
      expect(Array.from(r.sums), what).toEqual(Array.from(q.sums))
      expect(Array.from(r.counts), what).toEqual(Array.from(q.counts))
    }
  })
})
