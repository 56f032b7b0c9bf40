import { kernelNames } from '@codebook/runtime'
import { CreateRun, ErrorBody, IdParams, ListPageQuery, Run, RunList } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ApiError } from '../http/api-error.ts'
import { jobEventsRoute } from '../jobs/job-routes.ts'

const errors = { 400: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody, 503: ErrorBody }

/** REST routes of runs under `/api`: create (queued), list, detail, cancel, resume, event log. */
export const runRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/runs',
    {
      schema: {
        summary: 'Queue a K-means run on a ready dataset (body: the `codebook kmeans` flags in camelCase)',
        tags: ['runs'],
        body: CreateRun,
        response: { 201: Run, ...errors },
      },
    },
    async (request, reply) => {
      // An unknown kernel would otherwise pass here and fail only when the workers start.
      const kernels = kernelNames()
      if (!kernels.includes(request.body.kernel))
        throw new ApiError(
          400,
          'KERNEL_UNKNOWN',
          `kernel: no assignment kernel named '${request.body.kernel}' (known: ${kernels.join(', ')})`,
        )
      return reply.code(201).send(await app.runs.create(request.body))
    },
  )

  app.get(
    '/runs',
    {
      schema: {
        summary: "One page of runs, newest first (`limit`, `before` = the last page's `nextBefore`)",
        tags: ['runs'],
        querystring: ListPageQuery,
        response: { 200: RunList, 400: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
    },
    async (request) => {
      const { items, nextBefore } = await app.runs.list(request.query)
      return { runs: items, nextBefore }
    },
  )

  app.get(
    '/runs/:id',
    {
      schema: { summary: 'One run', tags: ['runs'], params: IdParams, response: { 200: Run, ...errors } },
    },
    async (request) => app.runs.get(request.params.id),
  )

  app.post(
    '/runs/:id/cancel',
    {
      schema: {
        summary: 'Cancel a queued or running run (answers once its workers are gone)',
        tags: ['runs'],
        params: IdParams,
        response: { 200: Run, ...errors },
      },
    },
    async (request) => app.runs.cancel(request.params.id),
  )

  app.post(
    '/runs/:id/resume',
    {
      schema: {
        summary: 'Queue an interrupted, cancelled or failed run again from its checkpoint',
        tags: ['runs'],
        params: IdParams,
        response: { 200: Run, ...errors },
      },
    },
    async (request) => app.runs.resume(request.params.id),
  )

  jobEventsRoute(app, 'runs', 'run', (id, after, limit) => app.runs.events(id, after, limit))
}
