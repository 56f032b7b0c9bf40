import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../http/api-error.ts'
import { type ApiToken, resolveApiToken, tokenMatches } from './api-token.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The API token writes must present as `Authorization: Bearer …`. */
    apiToken: ApiToken
  }
}

/** Options of {@link authPlugin}. */
export interface AuthPluginOptions {
  /** CODEBOOK_API_TOKEN; undefined → the home's generated token. */
  apiToken: string | undefined
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Writes to the API and to the tus endpoint need the token; reads and the UI's static files do not. */
export function needsToken(request: FastifyRequest): boolean {
  if (READ_METHODS.has(request.method)) return false
  const url = request.url
  return url.startsWith('/api/') || url === '/files' || url.startsWith('/files/') || url.startsWith('/files?')
}

async function authPluginImpl(app: FastifyInstance, options: AuthPluginOptions): Promise<void> {
  const apiToken = await resolveApiToken(app.home.home, options.apiToken)
  app.decorate('apiToken', apiToken)
  app.addHook('onRequest', async (request) => {
    if (!needsToken(request)) return
    const header = request.headers.authorization
    if (header === undefined || header === '') {
      throw new ApiError(
        401,
        'UNAUTHORIZED',
        `${request.method} ${request.url.split('?')[0]} needs "Authorization: Bearer <token>" (the token is printed at the first start and kept in ${apiToken.file}, or set by CODEBOOK_API_TOKEN)`,
      )
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
 * Decorates `app.apiToken` and rejects writes without the right bearer token (401 UNAUTHORIZED /
 * INVALID_TOKEN). Reads stay open: the default instance listens on 127.0.0.1 only, and a bearer
 * header (unlike a cookie) cannot be attached by another web page, so it also stops cross-site writes.
 */
export const authPlugin = fp(authPluginImpl, {
  name: 'codebook-auth',
  fastify: '5.x',
  dependencies: ['codebook-home'],
})
