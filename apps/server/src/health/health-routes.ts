import { readFileSync } from 'node:fs'
import { kernelNames } from '@codebook/runtime/kmeans'
import { ErrorBody, Health, ServerLimits } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'

// package.json sits one level above both src/ and dist/.
const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version

/** The configured limits `GET /api/limits` reports (the kernels come from the runtime). */
export type HealthRoutesOptions = Omit<ServerLimits, 'kernels'>

/**
 * `GET /api/health` (liveness, version, database), `GET /api/limits` (what a run may ask for, so
 * the web form can check before submitting) and `POST /api/token/check` (an authenticated no-op:
 * 204 with the right token, the auth hook's 401 otherwise — how the web tells a wrong pasted token).
 */
export const healthRoutes: FastifyPluginAsyncZod<HealthRoutesOptions> = async (app, options) => {
  const started = Date.now()
  app.get(
    '/health',
    { schema: { summary: 'Server health', tags: ['server'], response: { 200: Health, 429: ErrorBody } } },
    async () => ({
      status: 'ok' as const,
      version,
      database: app.dbDriver,
      uptimeSeconds: (Date.now() - started) / 1000,
    }),
  )

  const limits: ServerLimits = {
    maxWorkersPerRun: options.maxWorkersPerRun,
    maxQueuedRuns: options.maxQueuedRuns,
    maxUploadBytes: options.maxUploadBytes,
    kernels: kernelNames(),
  }
  app.get(
    '/limits',
    {
      schema: {
        summary: 'Limits this server enforces on runs',
        tags: ['server'],
        response: { 200: ServerLimits },
      },
    },
    async () => limits,
  )

  app.post(
    '/token/check',
    {
      schema: {
        summary: 'Checks the API token: 204 when it is right, 401 otherwise (changes nothing)',
        tags: ['server'],
        response: { 204: z.null(), 401: ErrorBody, 429: ErrorBody },
      },
    },
    async (_request, reply) => reply.code(204).send(null),
  )
}
