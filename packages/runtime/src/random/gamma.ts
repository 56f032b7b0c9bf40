import { UsageError } from '../errors.ts'
import type { Sfc32 } from './sfc32.ts'

/**
 * A gamma distribution given by its mean and coefficient of variation (CV = sd / mean):
 * shape k = 1 / CV², scale θ = mean · CV². CV 1 is the exponential; CV 0 the constant `mean`.
 * The fields are Marsaglia–Tsang's constants, computed once per distribution.
 */
export class GammaDistribution {
  readonly shape: number
  readonly scale: number
  /** Shape used by the sampler: k, or k + 1 when k < 1 (boosted, see {@link sampleGamma}). */
  private readonly d: number
  private readonly c: number
  private readonly invShape: number

  constructor(
    readonly mean: number,
    readonly cv: number,
  ) {
    if (!(Number.isFinite(mean) && mean >= 0))
      throw new UsageError('BAD_GAMMA_MEAN', `a gamma mean must be a finite number ≥ 0, got ${mean}`)
    if (!(Number.isFinite(cv) && cv >= 0))
      throw new UsageError(
        'BAD_GAMMA_CV',
        `a gamma coefficient of variation must be finite and ≥ 0, got ${cv}`,
      )
    this.shape = cv > 0 ? 1 / (cv * cv) : Number.POSITIVE_INFINITY
    this.scale = mean * cv * cv
    const boosted = this.shape < 1 ? this.shape + 1 : this.shape
    this.d = boosted - 1 / 3
    this.c = 1 / Math.sqrt(9 * this.d)
    this.invShape = 1 / this.shape
  }

  /** One draw from `source` (Marsaglia and Tsang, "A simple method for generating gamma variables", 2000). */
  sample(source: Sfc32): number {
    if (this.mean === 0) return 0
    if (this.cv === 0) return this.mean
    const { d, c } = this
    let draw: number
    for (;;) {
      const x = standardNormal(source)
      let v = 1 + c * x
      if (v <= 0) continue
      v = v * v * v
      const u = openUniform(source)
      const x2 = x * x
      // The squeeze accepts ~98 % without a logarithm.
      if (u < 1 - 0.0331 * x2 * x2 || Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) {
        draw = d * v
        break
      }
    }
    // Shape k < 1: G(k) = G(k + 1) · U^(1/k), taken through logarithms (U^(1/k) underflows
    // harmlessly to 0 at CV 10, where k = 0.01).
    if (this.shape < 1) draw *= Math.exp(Math.log(openUniform(source)) * this.invShape)
    return draw * this.scale
  }
}

/** Uniform in (0, 1): never 0, so its logarithm is finite. */
function openUniform(source: Sfc32): number {
  return (source.nextU32() + 0.5) / 4294967296
}

/** Standard normal by Marsaglia's polar method (the second value is dropped: reseeding stays exact). */
function standardNormal(source: Sfc32): number {
  for (;;) {
    const u = 2 * source.next() - 1
    const v = 2 * source.next() - 1
    const s = u * u + v * v
    if (s > 0 && s < 1) return u * Math.sqrt((-2 * Math.log(s)) / s)
  }
}
