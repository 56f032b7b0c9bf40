import { kernelNames } from '@codebook/runtime/kmeans'
import {
  CreateRunRequest,
  DeleteRunQuery,
  EntityId,
  ErrorBody,
  IdParams,
  IterationsQuery,
  Run,
  RunIterations,
  RunList,
  RunListQuery,
  UpdateRun,
} from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../http/api-error.ts'
import { jobEventsRoute } from '../jobs/job-routes.ts'
import { iterationsCsv } from './run-iterations.ts'

const errors = { 400: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody, 503: ErrorBody }

/** REST routes of runs under `/api`: create (queued), list, detail, cancel, resume, event log. */
export const runRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/runs',
    {
      schema: {
        summary:
          'Queue a K-means run on a ready dataset (body: the `codebook kmeans` flags in camelCase; with `cloneOf`, that run’s params and the fields given)',
        tags: ['runs'],
        body: CreateRunRequest,
        response: { 201: Run, ...errors },
      },
      // `cloneOf`: the source run's stored params fill what the body leaves out, before validation.
      preValidation: async (request) => {
        const body = request.body
        if (typeof body !== 'object' || body === null || Array.isArray(body) || !('cloneOf' in body)) return
        const { cloneOf, ...overrides } = body as Record<string, unknown>
        const id = EntityId.safeParse(cloneOf)
        if (!id.success) throw new ApiError(400, 'INVALID_ID', `cloneOf: ${id.error.issues[0]?.message}`)
        const source = await app.runs.get(id.data).catch((err: unknown) => {
          if (err instanceof ApiError && err.statusCode === 404)
            throw new ApiError(404, 'RUN_NOT_FOUND', `cloneOf: no run with id ${id.data}`)
          throw err
        })
        const params: Record<string, unknown> = { ...source.params }
        // Another topology than the source's is used at its latest version unless one is given.
        if ('topologyId' in overrides && overrides.topologyId !== source.params.topologyId)
          delete params.topologyVersion
        request.body = { ...params, ...overrides } as typeof request.body
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
        summary:
          "One page of runs, newest first (`limit`, `before` = the last page's `nextBefore`), filtered by `tag`, `datasetId`, `status`, `k`, `q`, `createdAfter`, `createdBefore` (AND)",
        tags: ['runs'],
        querystring: RunListQuery,
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

  app.patch(
    '/runs/:id',
    {
      schema: {
        summary: 'Rename a run, or set its notes or tags (any of `name`, `notes`, `tags`)',
        tags: ['runs'],
        params: IdParams,
        body: UpdateRun,
        response: { 200: Run, ...errors },
      },
    },
    async (request) => app.runs.update(request.params.id, request.body),
  )

  app.delete(
    '/runs/:id',
    {
      schema: {
        summary:
          'Delete a run (cancelled first when queued or running): its record, events and checkpoints, and its vocabulary unless `vocabulary=keep` (the default)',
        tags: ['runs'],
        params: IdParams,
        querystring: DeleteRunQuery,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await app.runs.remove(request.params.id, request.query.vocabulary)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/runs/:id/iterations',
    {
      schema: {
        summary:
          'Per-iteration metrics: iteration, inertia (full precision), reassigned, each stage’s ms and bytes (json, or csv with a header line)',
        tags: ['runs'],
        params: IdParams,
        querystring: IterationsQuery,
        // CSV goes out as text: Fastify serializes only JSON answers.
        response: { 200: RunIterations.or(z.string()), ...errors },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const iterations = await app.runs.iterations(id)
      if (request.query.format === 'json') return { runId: id, iterations }
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="run-${id}-iterations.csv"`)
        .send(iterationsCsv(iterations))
    },
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
