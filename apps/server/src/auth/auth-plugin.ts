import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../http/api-error.ts'
import { type ApiToken, resolveApiToken, tokenMatches } from './api-token.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The API token writes must present as `Authorization: Bearer …`. */
    apiToken: ApiToken
    /** Every route that needs the token, as `METHOD /pattern` (for tests and docs/security.md). */
    writeRoutes: string[]
  }
}

/** Options of {@link authPlugin}. */
export interface AuthPluginOptions {
  /** CODEBOOK_API_TOKEN; undefined → the home's generated token. */
  apiToken: string | undefined
}

/** Methods that never change state. Everything else is a write, whatever the URL says. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether a request needs the token: every write method does, on every route and on no route at
 * all. The URL is never consulted, so no spelling of a path (percent-encoding, `//`, `/./`, case)
 * can turn a write into a read; the router decides which handler runs, the method decides the rule.
 */
export function needsToken(request: FastifyRequest): boolean {
  return !READ_METHODS.has(request.method)
}

const TOKEN_HELP =
  'send "Authorization: Bearer <token>"; the server prints the token link at start and keeps it in CODEBOOK_HOME/api-token (or CODEBOOK_API_TOKEN sets it)'

async function authPluginImpl(app: FastifyInstance, options: AuthPluginOptions): Promise<void> {
  const apiToken = await resolveApiToken(app.home.home, options.apiToken)
  app.decorate('apiToken', apiToken)
  const writeRoutes: string[] = []
  app.decorate('writeRoutes', writeRoutes)
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    for (const method of methods) if (!READ_METHODS.has(method)) writeRoutes.push(`${method} ${route.url}`)
  })
  app.addHook('onRequest', async (request) => {
    if (!needsToken(request)) return
    const header = request.headers.authorization
    if (header === undefined || header === '') {
      throw new ApiError(401, 'UNAUTHORIZED', `${request.method} is a write: ${TOKEN_HELP}`)
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (match === null) {
      throw new ApiError(401, 'UNAUTHORIZED', 'the Authorization header must be "Bearer <token>"')
    }
    if (!tokenMatches(apiToken.token, match[1] as string)) {
      throw new ApiError(401, 'INVALID_TOKEN', 'the API token is not this server’s')
    }
  })
}

/**
 * Decorates `app.apiToken` and rejects every write method without the right bearer token (401
 * UNAUTHORIZED / INVALID_TOKEN), before routing's handlers, body parsing and the rate limit.
 * Reads stay open: the default instance listens on 127.0.0.1 only. A bearer header (unlike a
 * cookie) cannot be attached by another web page, and the origin policy refuses foreign origins.
 */
export const authPlugin = fp(authPluginImpl, {
  name: 'codebook-auth',
  fastify: '5.x',
  dependencies: ['codebook-home'],
})
