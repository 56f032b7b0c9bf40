import { ErrorBody, IdParams, type JobEvent, JobEventList } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'

/** One page of a job's events: a 1,000-iteration run with 64 workers is tens of MB in one answer otherwise. */
export const MAX_EVENTS_PER_PAGE = 2000

const EventsQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .nonnegative()
    .max(2 ** 31 - 1)
    .default(0)
    .describe('return events with seq > after'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_EVENTS_PER_PAGE)
    .default(MAX_EVENTS_PER_PAGE)
    .describe(`at most this many events (≤ ${MAX_EVENTS_PER_PAGE}); page on with after = the last seq`),
})

type ZodApp = Parameters<FastifyPluginAsyncZod>[0]

/**
 * `GET /<collection>/:id/events?after&limit`: a stored job's events in seq order, the same feed
 * `job:join` replays (every kind has this route).
 */
export function jobEventsRoute(
  app: ZodApp,
  collection: 'runs' | 'evaluations' | 'studies',
  noun: string,
  events: (id: string, after: number, limit: number) => Promise<JobEvent[]>,
): void {
  app.get(
    `/${collection}/:id/events`,
    {
      schema: {
        summary: `Stored events of a ${noun} with seq > after, in order`,
        tags: [collection],
        params: IdParams,
        querystring: EventsQuery,
        response: { 200: JobEventList, 400: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => ({
      events: await events(request.params.id, request.query.after, request.query.limit),
    }),
  )
}
