import type { ReductionAlgorithm } from './algorithms.ts'
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
  /** The algorithm with the lowest mean makespan (Figure 4, right). */
  best: ReductionAlgorithm
}

/** Plays one Figure 4 cell. */
export function gridCell(n: number, cv: number, muC: number, runs: number, seed: number): GridRow {
  const makespans = playCell({ n, cv, muC: muC * MEAN_COMMUNICATION, runs, seed })
  const means = Object.fromEntries([...makespans].map(([a, values]) => [a, mean(values)])) as Record<
    ReductionAlgorithm,
    number
  >
  const best = (Object.keys(means) as ReductionAlgorithm[]).reduce((a, b) => (means[b] < means[a] ? b : a))
  return { n, cv, muC, runs, means, fibonacciOverTreeDyn: means.fibonacci / means['tree-dyn'], best }
}
