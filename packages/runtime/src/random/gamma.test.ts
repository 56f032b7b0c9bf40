import { describe, expect, it } from 'vitest'
import { CodebookError } from '../errors.ts'
import { GammaDistribution } from './gamma.ts'
import { Sfc32 } from './sfc32.ts'

/** Kolmogorov–Smirnov distance between a sample and a CDF. */
function ksDistance(sample: Float64Array, cdf: (x: number) => number): number {
  const sorted = sample.slice().sort()
  let worst = 0
  sorted.forEach((x, i) => {
    const f = cdf(x)
    worst = Math.max(worst, Math.abs(f - i / sorted.length), Math.abs(f - (i + 1) / sorted.length))
  })
  return worst
}

/** Erlang CDF (integer shape k, scale θ): 1 − Σ_{i<k} e^(−x/θ) (x/θ)^i / i!. */
function erlangCdf(k: number, scale: number): (x: number) => number {
  return (x) => {
    const y = x / scale
    let term = Math.exp(-y)
    let sum = term
    for (let i = 1; i < k; i++) sum += term *= y / i
    return 1 - sum
  }
}

/** erf by Abramowitz–Stegun 7.1.26 (|error| < 1.5e-7), for the shape-½ CDF erf(√(x/θ)). */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * x)
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
  return 1 - poly * Math.exp(-x * x)
}

function draw(dist: GammaDistribution, count: number, seed: number): Float64Array {
  const source = new Sfc32(seed)
  const out = new Float64Array(count)
  for (let i = 0; i < count; i++) out[i] = dist.sample(source)
  return out
}

// KS critical value at α = 0.001 is 1.95/√N.
const N = 20_000
const KS_LIMIT = 1.95 / Math.sqrt(N)

describe('GammaDistribution (Marsaglia–Tsang)', () => {
  for (const k of [1, 2, 4]) {
    it(`shape ${k}: the sample follows the Erlang CDF (KS)`, () => {
      const dist = new GammaDistribution(2, 1 / Math.sqrt(k))
      expect(dist.shape).toBeCloseTo(k, 12)
      expect(ksDistance(draw(dist, N, 7 + k), erlangCdf(k, dist.scale))).toBeLessThan(KS_LIMIT)
    })
  }

  it('shape ½ (the boosted path): the sample follows θ·χ²₁/2, CDF erf(√(x/θ)) (KS)', () => {
    const dist = new GammaDistribution(1, Math.SQRT2)
    expect(ksDistance(draw(dist, N, 3), (x) => erf(Math.sqrt(x / dist.scale)))).toBeLessThan(KS_LIMIT)
  })

  for (const cv of [0.01, 0.3, 3]) {
    it(`CV ${cv}: sample mean and CV match`, () => {
      const sample = draw(new GammaDistribution(1, cv), 200_000, 11)
      const mean = sample.reduce((a, b) => a + b, 0) / sample.length
      const sd = Math.sqrt(sample.reduce((a, b) => a + (b - mean) ** 2, 0) / (sample.length - 1))
      // Mean within 5 standard errors; the CV within 5 % (the sample CV of shape 1/9 is noisy).
      expect(Math.abs(mean - 1)).toBeLessThan((5 * cv) / Math.sqrt(sample.length))
      expect(Math.abs(sd / mean / cv - 1)).toBeLessThan(0.05)
    })
  }

  it('CV 10 (shape 0.01): positive or zero draws with the right mean', () => {
    const sample = draw(new GammaDistribution(1, 10), 400_000, 5)
    expect(sample.every((x) => x >= 0 && Number.isFinite(x))).toBe(true)
    const mean = sample.reduce((a, b) => a + b, 0) / sample.length
    expect(Math.abs(mean - 1)).toBeLessThan(5 * (10 / Math.sqrt(sample.length)))
  })

  it('CV 0 is the constant mean, mean 0 is 0; a negative mean or CV is a coded error', () => {
    const source = new Sfc32(1)
    expect(new GammaDistribution(3, 0).sample(source)).toBe(3)
    expect(new GammaDistribution(0, 2).sample(source)).toBe(0)
    expect(() => new GammaDistribution(-1, 1)).toThrow(CodebookError)
    expect(() => new GammaDistribution(1, Number.NaN)).toThrow(/coefficient of variation/)
  })

  it('reseeding a source by a key pair replays the same draw', () => {
    const source = new Sfc32()
    const dist = new GammaDistribution(1, 1)
    source.seedPair(42, 7)
    const first = dist.sample(source)
    source.seedPair(42, 8)
    const other = dist.sample(source)
    source.seedPair(42, 7)
    expect(dist.sample(source)).toBe(first)
    expect(other).not.toBe(first)
  })
})
