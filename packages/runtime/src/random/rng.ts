import { Sfc32 } from './sfc32.ts'

/**
 * A seeded random source. Everything random in the runtime (k-means++ draws, random chain
 * orders, splits, synthetic data) takes one of these, so a seed reproduces a run exactly.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number
  /** Uniform integer in [0, n). */
  int(n: number): number
  /** Standard normal (Box–Muller). */
  normal(): number
}

/** A seeded {@link Rng} over sfc32 (see `sfc32.ts`); the same seed gives the same draws as always. */
export function createRng(seed: number): Rng {
  const source = new Sfc32(seed)
  let spare: number | undefined
  return {
    next: () => source.next(),
    int: (n) => Math.floor(source.next() * n),
    normal: () => {
      if (spare !== undefined) {
        const v = spare
        spare = undefined
        return v
      }
      let u = 0
      while (u === 0) u = source.next()
      const v = source.next()
      const r = Math.sqrt(-2 * Math.log(u))
      spare = r * Math.sin(2 * Math.PI * v)
      return r * Math.cos(2 * Math.PI * v)
    },
  }
}
