import { type ReductionAlgorithm, rankOrderedReductions, reductionAlgorithms } from './algorithms.ts'
import { MEAN_COMMUNICATION, mean, playCell } from './run-study.ts'

/** The paper's Figure 4 axes: CV 0.01 … 10 and μc/μd 0.01 … 100, four points a decade. */
export const GRID_CVS = Array.from({ length: 13 }, (_, i) => roundSignificant(10 ** (-2 + i / 4)))
export const GRID_COMPUTE_RATIOS = Array.from({ length: 17 }, (_, i) => roundSignificant(10 ** (-2 + i / 4)))

/** Rounds to 3 significant digits, so grid values print as 0.0178, not 0.017782794100389226. */
function roundSignificant(x: number): number {
  return Number(x.toPrecision(3))
}

/** One line of `codebook study reductions --grid --json`: one cell of Figure 4. */
export interface GridRow {
  n: number
  cv: number
  /** μc / μd (μd = 1, so also μc). */
  muC: number
  runs: number
  means: Record<ReductionAlgorithm, number>
  /** Mean makespan of Fibonacci-stat over that of Tree-dyn (Figure 4, left). */
  fibonacciOverTreeDyn: number
  /**
   * The algorithm with the lowest mean makespan among all four (our map beside Figure 4, right).
   * The paper's Figure 4(b) ranks only the three that accept a non-commutative ⊕: it is not
   * stored, {@link bestNonCommutative} derives it from `means` (which holds all four).
   */
  best: ReductionAlgorithm
}

/** The algorithm of `among` with the lowest mean in `means`; the earlier one in `among` on a tie. */
export function bestAmong(
  means: Record<ReductionAlgorithm, number>,
  among: readonly ReductionAlgorithm[],
): ReductionAlgorithm {
  if (among.length === 0) throw new RangeError('no algorithm to rank')
  return among.reduce((a, b) => (means[b] < means[a] ? b : a))
}

/**
 * The paper's Figure 4(b) for one cell: the lowest mean among Binomial-stat, Fibonacci-stat and
 * Non-Commut-Tree-dyn ({@link rankOrderedReductions}: Tree-dyn, which needs a commutative ⊕,
 * is left out).
 */
export function bestNonCommutative(means: Record<ReductionAlgorithm, number>): ReductionAlgorithm {
  return bestAmong(means, rankOrderedReductions)
}

/** Plays one Figure 4 cell. */
export function gridCell(n: number, cv: number, muC: number, runs: number, seed: number): GridRow {
  const makespans = playCell({ n, cv, muC: muC * MEAN_COMMUNICATION, runs, seed })
  const means = Object.fromEntries([...makespans].map(([a, values]) => [a, mean(values)])) as Record<
    ReductionAlgorithm,
    number
  >
  const best = bestAmong(means, reductionAlgorithms)
  return { n, cv, muC, runs, means, fibonacciOverTreeDyn: means.fibonacci / means['tree-dyn'], best }
}
