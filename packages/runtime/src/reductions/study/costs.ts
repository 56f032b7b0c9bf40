import { UsageError } from '../../errors.ts'
import type { GammaDistribution } from '../../random/gamma.ts'
import { mix32, Sfc32 } from '../../random/sfc32.ts'

/**
 * The costs of one reduction instance as the paper models them: sending a partial result from
 * `from` to `to` takes `communication(from, to)`; one ⊕ on `rank` takes `computation(rank)`.
 * The algorithms never look at them in advance (they are non-clairvoyant); the player asks
 * for a cost when the operation happens.
 */
export interface ReductionCosts {
  readonly n: number
  communication(from: number, to: number): number
  computation(rank: number): number
}

/** Every process count the study accepts: pair keys `from · n + to` must stay below 2³⁰. */
export const MAX_STUDY_PROCESSES = 16_384

/** Up to this many processes an instance keeps its draws (8 MiB + 4 MiB of n² entries at 1,024). */
export const MAX_CACHED_PROCESSES = 1024

/** An instance given as numbers: `communication[from · n + to]` and `computation[rank]`. */
export class MatrixCosts implements ReductionCosts {
  constructor(
    readonly n: number,
    readonly communicationMatrix: Float64Array,
    readonly computationCosts: Float64Array,
  ) {
    if (communicationMatrix.length !== n * n || computationCosts.length !== n)
      throw new UsageError(
        'BAD_COST_MATRIX',
        `costs for ${n} processes need ${n}×${n} communication and ${n} computation costs`,
      )
  }

  /** The same cost `d` on every link and `c` on every process. */
  static uniform(n: number, d: number, c: number): MatrixCosts {
    return new MatrixCosts(n, new Float64Array(n * n).fill(d), new Float64Array(n).fill(c))
  }

  communication(from: number, to: number): number {
    return this.communicationMatrix[from * this.n + to]!
  }

  computation(rank: number): number {
    return this.computationCosts[rank]!
  }
}

/**
 * Random instances: each communication cost d(i→j) and each computation cost c(i) an
 * independent gamma draw. A draw is keyed by (instance, i, j) rather than taken from one
 * stream, so every algorithm played on instance r meets the same d(i→j) whatever order it
 * asks in (common random numbers: the algorithms are compared on the same instances) and no
 * n × n matrix is drawn for the n − 1 links a reduction uses.
 */
export class GammaInstanceCosts implements ReductionCosts {
  private readonly source = new Sfc32()
  private readonly computations: Float64Array
  private key = 0
  /**
   * Draws of this instance, kept for the next algorithm (the four share many links, e.g. the
   * first round's 1→0, 3→2, …): `cached[i·n + j]` is valid when `cachedFor[i·n + j]` is the
   * instance's stamp. Only up to {@link MAX_CACHED_PROCESSES} processes (n² entries).
   */
  private readonly cached: Float64Array | undefined
  private readonly cachedFor: Int32Array | undefined
  private stamp = 0

  constructor(
    readonly n: number,
    readonly communicationCost: GammaDistribution,
    readonly computationCost: GammaDistribution,
  ) {
    if (!Number.isInteger(n) || n < 1 || n > MAX_STUDY_PROCESSES)
      throw new UsageError(
        'BAD_PROCESS_COUNT',
        `the study takes 1 … ${MAX_STUDY_PROCESSES} processes, got ${n}`,
      )
    this.computations = new Float64Array(n)
    if (n <= MAX_CACHED_PROCESSES) {
      this.cached = new Float64Array(n * n)
      this.cachedFor = new Int32Array(n * n)
    }
  }

  /** Moves to instance `index` of the series `seed` (the same pair gives the same instance). */
  setInstance(seed: number, index: number): void {
    this.key = mix32(Math.imul(seed >>> 0, 0x9e3779b1) ^ index)
    this.stamp = (this.stamp + 1) | 0 || 1 // 0 marks "never drawn"
    const n = this.n
    if (this.computationCost.mean === 0) return // free ⊕: the zeros stay, no draws to spend
    for (let rank = 0; rank < n; rank++) {
      this.source.seedPair(this.key, n * n + rank)
      this.computations[rank] = this.computationCost.sample(this.source)
    }
  }

  communication(from: number, to: number): number {
    const pair = from * this.n + to
    const { cached, cachedFor } = this
    if (cached && cachedFor) {
      if (cachedFor[pair] === this.stamp) return cached[pair]!
      cachedFor[pair] = this.stamp
      return (cached[pair] = this.draw(pair))
    }
    return this.draw(pair)
  }

  private draw(pair: number): number {
    this.source.seedPair(this.key, pair)
    return this.communicationCost.sample(this.source)
  }

  computation(rank: number): number {
    return this.computations[rank]!
  }

  /** This instance as numbers (all n² links drawn), e.g. to inject the same delays into real workers. */
  toMatrix(): MatrixCosts {
    const n = this.n
    const matrix = new Float64Array(n * n)
    for (let from = 0; from < n; from++)
      for (let to = 0; to < n; to++) if (from !== to) matrix[from * n + to] = this.communication(from, to)
    return new MatrixCosts(n, matrix, this.computations.slice())
  }
}
