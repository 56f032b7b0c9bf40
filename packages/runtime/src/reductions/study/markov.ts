import { UsageError } from '../../errors.ts'
import { mean, playCell, sampleVariance } from './run-study.ts'

/** One line of `codebook study reductions --markov --json`. */
export interface MarkovRow {
  n: number
  runs: number
  simulatedMean: number
  simulatedVariance: number
  formulaMean: number
  formulaVariance: number
  /** The paper's printed mean (2·H(n/2) + 2/n)/λ, for even n; null for odd n (the paper states it for even n). */
  paperFormulaMean: number | null
}

/**
 * Tree-dyn with exponential communication costs (rate λ = 1/μd) and no computation, as a Markov
 * chain. With m partial results left, ⌊m/2⌋ transfers are in flight and at most one process
 * waits (a finished receiver pairs with the waiting one, or becomes it): pairing is instantaneous
 * when computation is free. Each transfer's cost is a fresh exponential (a process sends once, so
 * no link is used twice), so by memorylessness the time from m to m − 1 results is the minimum
 * of ⌊m/2⌋ exponentials: exponential with rate λ·⌊m/2⌋. Summing the independent stages:
 * E[T] = Σ_{m=2}^{n} 1/(λ⌊m/2⌋) and Var[T] = Σ_{m=2}^{n} 1/(λ⌊m/2⌋)².
 * For even n = 2p, E[T] = (2·H(p) − 1/p)/λ = (2·H(n/2) − 2/n)/λ: the paper prints + 2/n.
 */
export function treeDynExponentialMoments(n: number, lambda = 1): { mean: number; variance: number } {
  let mean = 0
  let variance = 0
  for (let m = 2; m <= n; m++) {
    const stage = 1 / (lambda * Math.floor(m / 2))
    mean += stage
    variance += stage * stage
  }
  return { mean, variance }
}

/** The harmonic number H(k) = 1 + 1/2 + … + 1/k. */
export function harmonic(k: number): number {
  let sum = 0
  for (let i = 1; i <= k; i++) sum += 1 / i
  return sum
}

/** The paper's printed mean of Tree-dyn, (2·H(n/2) + 2/n)/λ, for even n (null otherwise). */
export function paperTreeDynMean(n: number, lambda = 1): number | null {
  return n % 2 === 0 ? (2 * harmonic(n / 2) + 2 / n) / lambda : null
}

/** Simulates Tree-dyn with exponential costs (CV 1, μd = 1, μc = 0) and sets it beside the closed forms. */
export function markovCheck(
  n: number,
  runs: number,
  seed: number,
  onRun?: (done: number) => void,
): MarkovRow {
  if (!Number.isInteger(n) || n < 2)
    throw new UsageError('BAD_PROCESS_COUNT', `the Markov check needs at least 2 processes, got ${n}`)
  const makespans = playCell({ n, cv: 1, muC: 0, runs, seed, algorithms: ['tree-dyn'] }, onRun).get(
    'tree-dyn',
  )!
  const formula = treeDynExponentialMoments(n)
  return {
    n,
    runs,
    simulatedMean: mean(makespans),
    simulatedVariance: sampleVariance(makespans),
    formulaMean: formula.mean,
    formulaVariance: formula.variance,
    paperFormulaMean: paperTreeDynMean(n),
  }
}
