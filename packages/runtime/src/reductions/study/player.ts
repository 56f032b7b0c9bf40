import type { ReductionCosts } from './costs.ts'

/**
 * One reduction algorithm played on cost instances of n processes, without looking at the
 * costs in advance. Built once per n and reused for every instance (no allocation per run).
 */
export interface ReductionPlayer {
  readonly n: number
  /** Plays one instance and returns its makespan: when the root's last ⊕ completes. */
  play(costs: ReductionCosts): number
  /**
   * The combines of the last play, in the order they were decided: `merges[2k]` received
   * from `merges[2k + 1]` (n − 1 pairs).
   */
  readonly merges: Int32Array
}
