import { CreateStudy, ErrorBody, IdParams, Study, StudyList } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { jobEventsRoute } from '../jobs/job-routes.ts'

const errors = {
  400: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  429: ErrorBody,
  503: ErrorBody,
}

/** REST routes of reduction studies under `/api`: create (queued), list, detail, cancel, delete. */
export const studyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/studies',
    {
      schema: {
        summary:
          'Queue a discrete-event study of the non-clairvoyant reductions (reductions, grid or markov)',
        tags: ['studies'],
        body: CreateStudy,
        response: { 201: Study, ...errors },
      },
    },
    async (request, reply) => reply.code(201).send(await app.studies.create(request.body)),
  )

  app.get(
    '/studies',
    {
      schema: {
        summary: 'List studies, newest first',
        tags: ['studies'],
        response: { 200: StudyList },
      },
    },
    async () => ({ studies: await app.studies.list() }),
  )

  app.get(
    '/studies/:id',
    {
      schema: {
        summary: 'One study with the results of its finished cells',
        tags: ['studies'],
        params: IdParams,
        response: { 200: Study, ...errors },
      },
    },
    async (request) => app.studies.get(request.params.id),
  )

  app.post(
    '/studies/:id/cancel',
    {
      schema: {
        summary: 'Cancel a queued or running study (answers once it is cancelled)',
        tags: ['studies'],
        params: IdParams,
        response: { 200: Study, ...errors },
      },
    },
    async (request) => app.studies.cancel(request.params.id),
  )

  app.delete(
    '/studies/:id',
    {
      schema: {
        summary: 'Delete a study (cancels it first when it is queued or running)',
        tags: ['studies'],
        params: IdParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await app.studies.remove(request.params.id)
      return reply.code(204).send(null)
    },
  )

  jobEventsRoute(app, 'studies', 'study', (id, after, limit) => app.studies.events(id, after, limit))
}
