import { binomialPlan, fibonacciPlan } from '../plans.ts'
import { NonCommutTreeDynPlayer, TreeDynPlayer } from './play-dynamic.ts'
import { StaticPlayer } from './play-static.ts'
import type { ReductionPlayer } from './player.ts'

/** The paper's four non-clairvoyant reductions, by the CLI's names. */
export const reductionAlgorithms = ['binomial', 'fibonacci', 'tree-dyn', 'noncommut-tree-dyn'] as const
export type ReductionAlgorithm = (typeof reductionAlgorithms)[number]

/** Which algorithms fold a non-commutative ⊕ in rank order (Tree-dyn does not). */
export const rankOrderedReductions: readonly ReductionAlgorithm[] = [
  'binomial',
  'fibonacci',
  'noncommut-tree-dyn',
]

/** A player of `algorithm` for n processes. */
export function createReductionPlayer(algorithm: ReductionAlgorithm, n: number): ReductionPlayer {
  switch (algorithm) {
    case 'binomial':
      return new StaticPlayer(binomialPlan(n))
    case 'fibonacci':
      return new StaticPlayer(fibonacciPlan(n))
    case 'tree-dyn':
      return new TreeDynPlayer(n)
    case 'noncommut-tree-dyn':
      return new NonCommutTreeDynPlayer(n)
  }
}
