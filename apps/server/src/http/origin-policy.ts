import { isIP } from 'node:net'
import { DATASET_ID_HEADER } from '@codebook/shared'
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

/**
 * Whether the `Host` a request names may be served (DNS-rebinding guard). A page on
 * `evil.example` whose name is re-pointed at 127.0.0.1 is same-origin with itself and could read
 * the open API through the visitor's browser; its requests still name `evil.example` as Host. IP
 * literals and `localhost` (and `*.localhost`, which resolve to loopback by RFC 6761) cannot be
 * rebound, so they are always served; any other name must be in `allowed`
 * (CODEBOOK_ALLOWED_HOSTS; `.example.org` allows the name and its subdomains). No Host: not a
 * browser, served.
 */
export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  if (host === undefined) return true
  const name = hostName(host)
  if (name === null) return false
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return true
  return allowed.some((a) => (a.startsWith('.') ? name === a.slice(1) || name.endsWith(a) : name === a))
}

/** `Example.org:8080` → `example.org`, `[::1]:8080` → `::1`; null when it is not a host. */
function hostName(host: string): string | null {
  try {
    const name = new URL(`http://${host}`).hostname.toLowerCase()
    return name.startsWith('[') ? name.slice(1, -1) : name
  } catch {
    return null
  }
}

/** Options of {@link originPlugin}. */
export interface OriginPluginOptions {
  /** Origins besides the server's own that browsers may call the API from. */
  allowedOrigins: readonly string[]
  /** Host names besides IP literals and localhost the server answers to. */
  allowedHosts: readonly string[]
}

async function originPluginImpl(app: FastifyInstance, options: OriginPluginOptions): Promise<void> {
  const allowed = options.allowedOrigins
  app.addHook('onRequest', async (request) => {
    if (!hostAllowed(request.headers.host, options.allowedHosts)) {
      throw new ApiError(
        403,
        'HOST_NOT_ALLOWED',
        `this server does not answer to host ${JSON.stringify(request.headers.host?.slice(0, 200))}; add its name to CODEBOOK_ALLOWED_HOSTS to allow it`,
      )
    }
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
      exposedHeaders: [DATASET_ID_HEADER, 'Location', 'Upload-Offset', 'Upload-Length', 'Tus-Resumable'],
    })
  }
}

/**
 * Refuses requests naming a Host the server does not answer to (403 HOST_NOT_ALLOWED) and browser
 * requests from foreign origins (403 ORIGIN_NOT_ALLOWED) on every route, reads included, and answers CORS only for CODEBOOK_ALLOWED_ORIGINS. socket.io applies the same rule
 * through {@link hostAllowed} and {@link originAllowed} (see realtime-plugin.ts).
 */
export const originPlugin = fp(originPluginImpl, { name: 'codebook-origin', fastify: '5.x' })
