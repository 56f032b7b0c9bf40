/**
 * Entry of the plan child (see plan-process.ts): runs one mapping plan, sends the result and
 * exits, so seconds of K-means grouping and MPIPP never block the server's event loop.
 */
import { sendToParent, serveChildJob } from '../child/child-job-entry.ts'
import { type PlanJob, runPlan } from './plan-job.ts'
import type { PlanMessage } from './plan-process.ts'

serveChildJob<PlanJob>(
  async (body) => {
    await sendToParent({ type: 'result', result: runPlan(body) } satisfies PlanMessage)
  },
  { failureCode: 'PLAN_FAILED' },
)
