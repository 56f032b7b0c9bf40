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

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128-bit state, passes
 * PractRand, and is fast in JavaScript because it stays in 32-bit integer arithmetic.
 */
export function createRng(seed: number): Rng {
  // splitmix32 spreads a small integer seed over the 128-bit state.
  let s = seed >>> 0
  const split = () => {
    s = (s + 0x9e3779b9) | 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return (z ^ (z >>> 16)) >>> 0
  }
  let a = split()
  let b = split()
  let c = split()
  let d = split()
  const nextU32 = () => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return t >>> 0
  }
  let spare: number | undefined
  return {
    next: () => nextU32() / 4294967296,
    int: (n) => Math.floor((nextU32() / 4294967296) * n),
    normal: () => {
      if (spare !== undefined) {
        const v = spare
        spare = undefined
        return v
      }
      let u = 0
      while (u === 0) u = nextU32() / 4294967296
      const v = nextU32() / 4294967296
      const r = Math.sqrt(-2 * Math.log(u))
      spare = r * Math.sin(2 * Math.PI * v)
      return r * Math.cos(2 * Math.PI * v)
    },
  }
}
