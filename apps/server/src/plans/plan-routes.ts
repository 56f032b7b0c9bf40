import { CreatePlan, ErrorBody, PLAN_LIMITS, PlanResult } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ApiError } from '../http/api-error.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 422: ErrorBody, 429: ErrorBody, 503: ErrorBody }

/**
 * `POST /api/plans`: where each rank of a workload runs across a built-in site profile, per
 * planner (`codebook plan mapping` over HTTP). Checked here (coded 400s), planned in a child
 * process queued as a job; the request waits for the answer.
 */
export const planRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/plans',
    { schema: { tags: ['plans'], body: CreatePlan, response: { 200: PlanResult, ...errors } } },
    async (request) => {
      const body = request.body
      // Refused before it is queued: the runtime would refuse it only once a child has started.
      if (body.pattern === 'kmeans' && body.processes > PLAN_LIMITS.maxKmeansProcesses)
        throw new ApiError(
          400,
          'PATTERN_TOO_LARGE',
          `the kmeans pattern is derived from its schedules: at most ${PLAN_LIMITS.maxKmeansProcesses} processes, got ${body.processes}`,
        )
      return app.plans.run(body)
    },
  )
}
