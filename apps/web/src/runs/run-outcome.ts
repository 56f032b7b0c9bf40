import type { Run } from '@codebook/shared'

/**
 * Why a succeeded run stopped: `converged` when it stopped on its tol rule before
 * `maxIterations`, `max-iterations` when it used them all; null for any other status.
 * Derived from the record (it carries no stop reason): a run that converged exactly on its last
 * allowed iteration reads as `max-iterations`.
 */
export function runStopReason(
  run: Pick<Run, 'status' | 'iteration' | 'params'>,
): 'converged' | 'max-iterations' | null {
  if (run.status !== 'succeeded') return null
  return run.iteration < run.params.maxIterations ? 'converged' : 'max-iterations'
}
