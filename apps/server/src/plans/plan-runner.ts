import type { PlanResult } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import { createRequestQueue } from '../jobs/request-queue.ts'
import type { PlanJob } from './plan-job.ts'
import { planInChild } from './plan-process.ts'

/** Options of {@link createPlanRunner}. */
export interface PlanRunnerOptions {
  /** Longest one plan may run, the process start included: 422 `PLAN_TIMEOUT` past it. */
  timeoutMs: number
  /** Plans that may wait behind the running one; more → 503 `PLAN_BUSY`. */
  maxQueued: number
}

/**
 * Default limits: 120 s per plan (geo at 8,192 ranks is the 60 s target; MPIPP stops
 * itself at 20 s), 4 waiting.
 */
export const PLAN_DEFAULTS: PlanRunnerOptions = { timeoutMs: 120_000, maxQueued: 4 }

/** Mapping plans, one at a time, each in its own child process. */
export interface PlanRunner {
  run(body: PlanJob): Promise<PlanResult>
  /** Fails waiting plans with 503 `PLAN_CLOSED` and kills the running one. */
  close(): Promise<void>
}

/** Creates the {@link PlanRunner}: a kind of job of the server's one job queue. */
export function createPlanRunner(options: PlanRunnerOptions, log: FastifyBaseLogger): PlanRunner {
  const plans = createRequestQueue<PlanJob, PlanResult>(
    {
      name: 'plan',
      // One at a time: a plan takes a whole core for seconds.
      concurrency: 1,
      maxQueued: options.maxQueued,
      queueFull: (waiting) =>
        new ApiError(503, 'PLAN_BUSY', `${waiting} plans are waiting already; retry in a moment`),
      closedError: () => new ApiError(503, 'PLAN_CLOSED', 'the server is shutting down'),
      run: (body, signal) => planInChild(body, options.timeoutMs, signal),
    },
    log,
  )
  return { run: (body) => plans.perform(body), close: () => plans.queue.close() }
}
