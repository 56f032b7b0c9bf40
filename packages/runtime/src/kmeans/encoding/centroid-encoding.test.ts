import { describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { type CentroidEncoding, decodeCentroids, encodeCentroids, encodedBytes } from './centroid-encoding.ts'
import {
  FLOAT16_MAX,
  FLOAT16_MAX_RELATIVE_ERROR,
  FLOAT16_MAX_SUBNORMAL_ERROR,
  FLOAT16_MIN_NORMAL,
  float16BitsToFloat32,
  float32ToFloat16Bits,
} from './float16.ts'

/** Every finite half value, decoded independently of the encoder by the IEEE formula. */
function allFiniteHalves(): number[] {
  const out: number[] = []
  for (let e = 0; e < 31; e++) {
    for (let m = 0; m < 1024; m++) out.push(e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15))
  }
  return out
}

describe('float16 converter', () => {
  it('matches hand-checked IEEE half bit patterns', () => {
    expect(float32ToFloat16Bits(0)).toBe(0x0000)
    expect(float32ToFloat16Bits(-0)).toBe(0x8000)
    expect(float32ToFloat16Bits(1)).toBe(0x3c00)
    expect(float32ToFloat16Bits(-2)).toBe(0xc000)
    expect(float32ToFloat16Bits(0.5)).toBe(0x3800)
    expect(float32ToFloat16Bits(65504)).toBe(0x7bff)
    expect(float32ToFloat16Bits(2 ** -14)).toBe(0x0400)
    expect(float32ToFloat16Bits(2 ** -24)).toBe(0x0001)
    expect(float32ToFloat16Bits(1 / 3)).toBe(0x3555)
    expect(float16BitsToFloat32(0x3555)).toBeCloseTo(0.333251953125, 12)
  })

  it('rounds ties to even, including across binades and into the subnormals', () => {
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: even mantissa (1) wins.
    expect(float32ToFloat16Bits(1 + 2 ** -11)).toBe(0x3c00)
    // 1 + 3·2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
    expect(float32ToFloat16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02)
    // 2 − 2^-12 rounds up into the next binade: 2.
    expect(float32ToFloat16Bits(2 - 2 ** -12)).toBe(0x4000)
    // Half the smallest subnormal is a tie between 0 (even) and 2^-24.
    expect(float32ToFloat16Bits(2 ** -25)).toBe(0x0000)
    expect(float32ToFloat16Bits(3 * 2 ** -25)).toBe(0x0002)
    // 65519 rounds down to 65504; 65520 would round to infinity and is refused.
    expect(float32ToFloat16Bits(65519)).toBe(0x7bff)
    expect(() => float32ToFloat16Bits(65520)).toThrow(/half range/)
    expect(() => float32ToFloat16Bits(Number.NaN)).toThrow(/not finite/)
  })

  it('round-trips every finite half exactly and its bits decode back', () => {
    for (const v of allFiniteHalves()) {
      for (const s of [v, -v]) expect(float16BitsToFloat32(float32ToFloat16Bits(s))).toBe(s)
    }
  })

  it('picks the nearest half (brute force over all halves) for random float32 values', () => {
    const halves = allFiniteHalves()
    const rng = createRng(3)
    for (let trial = 0; trial < 2000; trial++) {
      const x = Math.fround(2 ** (rng.next() * 40 - 26) * (1 + rng.next()))
      if (x >= 65519) continue
      const got = float16BitsToFloat32(float32ToFloat16Bits(x))
      let best = Number.POSITIVE_INFINITY
      for (const h of halves) best = Math.min(best, Math.abs(h - x))
      expect(Math.abs(got - x)).toBe(best)
    }
  })
})

function randomCentroids(k: number, d: number, seed: number, scale: number): Float32Array {
  const rng = createRng(seed)
  const c = new Float32Array(k * d)
  for (let i = 0; i < c.length; i++) c[i] = rng.normal() * scale
  return c
}

describe('centroid encodings', () => {
  const encodings: CentroidEncoding[] = ['float32', 'float16', 'uint8']

  it('takes the stated number of bytes', () => {
    for (const enc of encodings) {
      expect(encodeCentroids(randomCentroids(7, 5, 1, 1), 7, 5, enc).length).toBe(encodedBytes(7, 5, enc))
    }
    expect(encodedBytes(1000, 512, 'float32')).toBe(2_048_000)
    expect(encodedBytes(1000, 512, 'float16')).toBe(1_024_000)
    expect(encodedBytes(1000, 512, 'uint8')).toBe(512_000 + 4096)
  })

  it('float32 is the identity', () => {
    const c = randomCentroids(9, 13, 2, 100)
    expect(decodeCentroids(encodeCentroids(c, 9, 13, 'float32'), 9, 13, 'float32')).toEqual(c)
  })

  it('float16 round-trips within 2^-11 relative (normal range) and 2^-25 absolute (subnormal)', () => {
    const k = 40
    const d = 50
    const c = randomCentroids(k, d, 3, 1)
    // Extremes: the largest half, the smallest normal, subnormals, zero, and values spanning many binades.
    c.set([FLOAT16_MAX, -FLOAT16_MAX, FLOAT16_MIN_NORMAL, 2 ** -20, -(2 ** -24), 0, 65519, 1e-8, 3e4, -7e-5])
    for (let i = 10; i < 200; i++) c[i] = Math.fround(c[i] * 2 ** ((i % 30) - 24))
    const back = decodeCentroids(encodeCentroids(c, k, d, 'float16'), k, d, 'float16')
    for (let i = 0; i < c.length; i++) {
      const x = c[i]
      const err = Math.abs(back[i] - x)
      if (Math.abs(x) >= FLOAT16_MIN_NORMAL)
        expect(err).toBeLessThanOrEqual(FLOAT16_MAX_RELATIVE_ERROR * Math.abs(x))
      else expect(err).toBeLessThanOrEqual(FLOAT16_MAX_SUBNORMAL_ERROR)
    }
  })

  it('float16 refuses centroids outside the half range', () => {
    const c = new Float32Array([1, 2, 1e5, 3])
    expect(() => encodeCentroids(c, 2, 2, 'float16')).toThrow(
      expect.objectContaining({ code: 'CENTROID_ENCODING_RANGE' }),
    )
  })

  it('uint8 round-trips within scale/2 per dimension, including a constant dimension and extremes', () => {
    const k = 64
    const d = 12
    const c = randomCentroids(k, d, 4, 10)
    for (let j = 0; j < k; j++) {
      c[j * d + 3] = 42.5 // constant dimension
      c[j * d + 7] = j === 5 ? 3e38 : j === 9 ? -3e38 : c[j * d + 7] // huge range
      c[j * d + 11] = c[j * d + 11] * 1e-30 // tiny range
    }
    const bytes = encodeCentroids(c, k, d, 'uint8')
    const back = decodeCentroids(bytes, k, d, 'uint8')
    for (let t = 0; t < d; t++) {
      let lo = Number.POSITIVE_INFINITY
      let hi = Number.NEGATIVE_INFINITY
      for (let j = 0; j < k; j++) {
        lo = Math.min(lo, c[j * d + t])
        hi = Math.max(hi, c[j * d + t])
      }
      const halfScale = (hi - lo) / 255 / 2
      for (let j = 0; j < k; j++) {
        const x = c[j * d + t]
        // scale/2 up to the float32 rounding of the stored scale and of the decoded value.
        expect(Math.abs(back[j * d + t] - x)).toBeLessThanOrEqual(
          halfScale * (1 + 2 ** -20) + 2 ** -23 * Math.max(Math.abs(x), Math.abs(lo)),
        )
      }
    }
    for (let j = 0; j < k; j++) expect(back[j * d + 3]).toBe(42.5)
  })

  it('decodes from a view at an unaligned offset', () => {
    const c = randomCentroids(3, 4, 5, 1)
    for (const enc of encodings) {
      const bytes = encodeCentroids(c, 3, 4, enc)
      const shifted = new Uint8Array(bytes.length + 1)
      shifted.set(bytes, 1)
      expect(decodeCentroids(shifted.subarray(1), 3, 4, enc)).toEqual(decodeCentroids(bytes, 3, 4, enc))
    }
  })

  it('rejects an unknown encoding and a wrong byte count', () => {
    expect(() => encodedBytes(1, 1, 'bfloat16' as CentroidEncoding)).toThrow(
      expect.objectContaining({ code: 'BAD_CENTROID_ENCODING' }),
    )
    expect(() => decodeCentroids(new Uint8Array(3), 1, 1, 'float32')).toThrow(
      expect.objectContaining({ code: 'BAD_CENTROID_BYTES' }),
    )
  })
})
