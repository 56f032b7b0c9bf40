import fastifyCors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from './api-error.ts'

/**
 * Whether a request from `origin` may be served. No Origin header: not a cross-site browser request
 * (scripts and same-origin navigations), allowed; writes still need the token. The server's own
 * origin — the Origin whose host:port is the request's Host — is allowed; so is every origin in
 * `allowed` (CODEBOOK_ALLOWED_ORIGINS, exact `scheme://host[:port]`). Everything else, `null`
 * (sandboxed frames, file://) included, is refused.
 */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[],
): boolean {
  if (origin === undefined) return true
  if (allowed.includes(origin)) return true
  let parsed: URL
  try {
    parsed = new URL(origin)
  } catch {
    return false
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false
  return host !== undefined && parsed.host === host.toLowerCase()
}

/** Options of {@link originPlugin}. */
export interface OriginPluginOptions {
  /** Origins besides the server's own that browsers may call the API from. */
  allowedOrigins: readonly string[]
}

async function originPluginImpl(app: FastifyInstance, options: OriginPluginOptions): Promise<void> {
  const allowed = options.allowedOrigins
  app.addHook('onRequest', async (request) => {
    const origin = request.headers.origin
    if (!originAllowed(origin, request.headers.host, allowed)) {
      throw new ApiError(
        403,
        'ORIGIN_NOT_ALLOWED',
        `requests from origin ${JSON.stringify(origin?.slice(0, 200))} are refused; add it to CODEBOOK_ALLOWED_ORIGINS to allow it`,
      )
    }
  })
  // CORS headers only for the configured origins: the UI is same-origin and needs none, so by
  // default no response carries Access-Control-Allow-Origin at all.
  if (allowed.length > 0) {
    await app.register(fastifyCors, {
      origin: [...allowed],
      credentials: false,
      exposedHeaders: ['Codebook-Dataset-Id', 'Location', 'Upload-Offset', 'Upload-Length', 'Tus-Resumable'],
    })
  }
}

/**
 * Refuses browser requests from foreign origins (403 ORIGIN_NOT_ALLOWED) on every route, reads
 * included, and answers CORS only for CODEBOOK_ALLOWED_ORIGINS. socket.io applies the same rule
 * through {@link originAllowed} (see realtime-plugin.ts).
 */
export const originPlugin = fp(originPluginImpl, { name: 'codebook-origin', fastify: '5.x' })
