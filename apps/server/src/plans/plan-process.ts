import type { PlanResult } from '@codebook/shared'
import { childCommand } from '../child/child-command.ts'
import { ChildJobError, startChildJob } from '../child/child-job.ts'
import { ApiError } from '../http/api-error.ts'
import type { PlanJob } from './plan-job.ts'

/** Child → parent, besides `done` / `error`. */
export type PlanMessage = { type: 'result'; result: PlanResult }

/** Heap of the plan child, MB: 8,192 ranks' matrices and Monte Carlo costs fit in a few hundred. */
const PLAN_HEAP_MB = 1024

/**
 * Plans `body` in a one-job child (`plan-child.ts`) and resolves with its result. Killed at
 * `timeoutMs` (422 `PLAN_TIMEOUT`) or when `signal` aborts; a refusal of the planner keeps its
 * code (400: `PATTERN_TOO_LARGE`, …), a dead child is 500 `PLAN_CRASHED`.
 */
export async function planInChild(
  body: PlanJob,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<PlanResult> {
  let result: PlanResult | undefined
  const proc = startChildJob<PlanJob, PlanMessage>(
    childCommand(import.meta.url, './plan-child', { maxHeapMb: PLAN_HEAP_MB }),
    body,
    {
      onMessage: (m) => {
        result = m.result
      },
      crashed: (exit) => new ChildJobError('PLAN_CRASHED', `the plan process exited early (${exit})`),
    },
  )
  let timedOut = false
  // A plan writes nothing: a stopped one is killed at once.
  const kill = () => void proc.stop(0)
  const timer = setTimeout(() => {
    timedOut = true
    kill()
  }, timeoutMs)
  signal?.addEventListener('abort', kill, { once: true })
  try {
    await proc.done
  } catch (err) {
    if (timedOut)
      throw new ApiError(
        422,
        'PLAN_TIMEOUT',
        `planning took longer than ${timeoutMs / 1000} s and was stopped: use fewer processes, fewer planners or fewer Monte Carlo samples`,
      )
    if (err instanceof ChildJobError)
      throw new ApiError(
        err.code.endsWith('_CRASHED') || err.code === 'PLAN_FAILED' ? 500 : 400,
        err.code,
        err.message,
      )
    throw err
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', kill)
  }
  if (result === undefined) throw new ApiError(500, 'PLAN_CRASHED', 'the plan process ended without a result')
  return result
}
