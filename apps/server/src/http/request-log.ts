import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** Query parameters whose values never reach a log. */
const SECRET_PARAMS = ['token', 'access_token']

/** `url` with the values of secret query parameters replaced by `REDACTED`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?')
  if (q < 0) return url
  const params = new URLSearchParams(url.slice(q + 1))
  let changed = false
  for (const name of SECRET_PARAMS) {
    if (params.has(name)) {
      params.set(name, 'REDACTED')
      changed = true
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url
}

async function requestLogPluginImpl(app: FastifyInstance): Promise<void> {
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      {
        method: request.method,
        url: redactUrl(request.url),
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    )
  })
}

/**
 * One log line per request, at `debug` (Fastify's own two lines per request are disabled in
 * buildApp), with `?token=` values redacted: the token link a user opens must not land in a log.
 */
export const requestLogPlugin = fp(requestLogPluginImpl, { name: 'codebook-request-log', fastify: '5.x' })
