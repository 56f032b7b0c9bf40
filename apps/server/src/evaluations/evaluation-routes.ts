import { CreateEvaluation, ErrorBody, Evaluation, EvaluationList, IdParams } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { jobEventsRoute } from '../jobs/job-routes.ts'

const errors = {
  400: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  429: ErrorBody,
  503: ErrorBody,
}

/** REST routes of evaluations under `/api`: create (queued), list, detail, cancel. */
export const evaluationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/evaluations',
    {
      schema: {
        summary: 'Queue an evaluation of vocabularies (one per k) on an image set',
        tags: ['evaluations'],
        body: CreateEvaluation,
        response: { 201: Evaluation, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await app.evaluations.create(request.body)),
  )

  app.get(
    '/evaluations',
    {
      schema: {
        summary: 'List evaluations, newest first',
        tags: ['evaluations'],
        response: { 200: EvaluationList },
      },
    },
    async () => ({ evaluations: await app.evaluations.list() }),
  )

  app.get(
    '/evaluations/:id',
    {
      schema: {
        summary: 'One evaluation with the results of its finished k',
        tags: ['evaluations'],
        params: IdParams,
        response: { 200: Evaluation, ...errors },
      },
    },
    async (request) => app.evaluations.get(request.params.id),
  )

  app.post(
    '/evaluations/:id/cancel',
    {
      schema: {
        summary: 'Cancel a queued or running evaluation (answers once it is cancelled)',
        tags: ['evaluations'],
        params: IdParams,
        response: { 200: Evaluation, ...errors },
      },
    },
    async (request) => app.evaluations.cancel(request.params.id),
  )

  jobEventsRoute(app, 'evaluations', 'evaluation', (id, after, limit) =>
    app.evaluations.events(id, after, limit),
  )
}
