import { UsageError } from '../../errors.ts'
import { GammaDistribution } from '../../random/gamma.ts'
import { createReductionPlayer, type ReductionAlgorithm, reductionAlgorithms } from './algorithms.ts'
import { GammaInstanceCosts } from './costs.ts'

/** The mean communication cost μd: every time in the study is in units of μd. */
export const MEAN_COMMUNICATION = 1

/** One cell of a study: `runs` instances of n processes, costs gamma with CV `cv`, means μd = 1 and `muC`. */
export interface StudyCell {
  n: number
  cv: number
  muC: number
  runs: number
  seed: number
  algorithms?: readonly ReductionAlgorithm[]
}

/** The makespans of a cell, one Float64Array (length `runs`) per algorithm, instance r at index r. */
export type CellMakespans = Map<ReductionAlgorithm, Float64Array>

/** One line of `codebook study reductions --json`. */
export interface StudyRow {
  algorithm: ReductionAlgorithm
  n: number
  cv: number
  muC: number
  runs: number
  mean: number
  q10: number
  q90: number
}

/**
 * Plays every algorithm on the same `runs` random instances (instance r of `seed` is the same
 * for every algorithm and every cv/μc, up to the distribution's shape), oblivious to the costs.
 * `onRun` is called every 1,000 runs with the runs done.
 */
export function playCell(cell: StudyCell, onRun?: (done: number) => void): CellMakespans {
  const { n, cv, muC, runs, seed } = cell
  if (!Number.isInteger(runs) || runs < 1)
    throw new UsageError('BAD_RUN_COUNT', `a study needs a whole number of runs ≥ 1, got ${runs}`)
  const algorithms = cell.algorithms ?? reductionAlgorithms
  const costs = new GammaInstanceCosts(
    n,
    new GammaDistribution(MEAN_COMMUNICATION, cv),
    new GammaDistribution(muC, cv),
  )
  const players = algorithms.map((algorithm) => createReductionPlayer(algorithm, n))
  const makespans = algorithms.map(() => new Float64Array(runs))
  for (let run = 0; run < runs; run++) {
    costs.setInstance(seed, run)
    for (let a = 0; a < players.length; a++) makespans[a]![run] = players[a]!.play(costs)
    if (onRun && (run + 1) % 1000 === 0) onRun(run + 1)
  }
  return new Map(algorithms.map((algorithm, a) => [algorithm, makespans[a]!]))
}

/** The mean of `values`. */
export function mean(values: Float64Array): number {
  let sum = 0
  for (const v of values) sum += v
  return sum / values.length
}

/** The unbiased sample variance of `values` (0 for a single value). */
export function sampleVariance(values: Float64Array): number {
  if (values.length < 2) return 0
  const m = mean(values)
  let sum = 0
  for (const v of values) sum += (v - m) * (v - m)
  return sum / (values.length - 1)
}

/** The p-quantile of ascending `sorted`, interpolated linearly between order statistics (R's type 7). */
export function quantileOfSorted(sorted: Float64Array, p: number): number {
  const h = (sorted.length - 1) * p
  const lo = Math.floor(h)
  const hi = Math.min(lo + 1, sorted.length - 1)
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!)
}

/** Summarises a cell as the CLI's rows, one per algorithm. */
export function summariseCell(cell: StudyCell, makespans: CellMakespans): StudyRow[] {
  return [...makespans].map(([algorithm, values]) => {
    const sorted = values.slice().sort()
    return {
      algorithm,
      n: cell.n,
      cv: cell.cv,
      muC: cell.muC,
      runs: values.length,
      mean: mean(values),
      q10: quantileOfSorted(sorted, 0.1),
      q90: quantileOfSorted(sorted, 0.9),
    }
  })
}
