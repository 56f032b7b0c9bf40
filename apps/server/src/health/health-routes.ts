import { readFileSync } from 'node:fs'
import { ErrorBody, Health } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'

// package.json sits one level above both src/ and dist/.
const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version

/** `GET /api/health`: liveness, version and which database backs the server. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
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
}
