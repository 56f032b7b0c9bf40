/** splitmix32's output function: spreads a 32-bit integer over all 32 bits. */
export function mix32(x: number): number {
  let z = x | 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128-bit state, passes
 * PractRand, and is fast in JavaScript because it stays in 32-bit integer arithmetic. A class
 * rather than closures so a hot loop can reseed it in place (no allocation) and V8 keeps the
 * state in fields.
 */
export class Sfc32 {
  private a = 0
  private b = 0
  private c = 0
  private d = 0

  constructor(seed = 0) {
    this.seed(seed)
  }

  /** Restarts the stream from `seed` (splitmix32 spreads a small integer over the state). */
  seed(seed: number): void {
    let s = seed >>> 0
    const split = () => {
      s = (s + 0x9e3779b9) | 0
      return mix32(s)
    }
    this.a = split()
    this.b = split()
    this.c = split()
    this.d = split()
  }

  /**
   * Restarts the stream from a pair of keys, e.g. (instance, pair of ranks): distinct pairs
   * give unrelated streams, so a value keyed by (run, i, j) is the same whichever algorithm
   * asks for it first (common random numbers). The keys are spread by splitmix32's mixer, so
   * four rounds suffice to decorrelate nearby keys (the study seeds once per draw: keep it cheap).
   */
  seedPair(key: number, subkey: number): void {
    this.a = mix32(key ^ 0x6a09e667)
    this.b = mix32((subkey + 0x9e3779b9) | 0)
    this.c = mix32(this.a ^ mix32(subkey ^ 0x3c6ef372))
    this.d = 1
    for (let i = 0; i < 4; i++) this.nextU32()
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296
  }
}
