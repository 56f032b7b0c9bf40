/**
 * Entry of the plan child (see plan-process.ts): runs one mapping plan, sends the result and
 * exits, so seconds of K-means grouping and MPIPP never block the server's event loop.
 */
import type { CreatePlan } from '@codebook/shared'
import { sendToParent, serveChildJob } from '../child/child-job-entry.ts'
import { runPlan } from './plan-job.ts'
import type { PlanMessage } from './plan-process.ts'

serveChildJob<CreatePlan>(
  async (body) => {
    await sendToParent({ type: 'result', result: runPlan(body) } satisfies PlanMessage)
  },
  { failureCode: 'PLAN_FAILED' },
)
