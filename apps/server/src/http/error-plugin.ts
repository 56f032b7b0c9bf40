import { CodebookError } from '@codebook/runtime/errors'
import { type ErrorBody, INVALID_ID_MESSAGE } from '@codebook/shared'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { statusOf } from './api-error.ts'
import { hideServerPaths } from './hide-paths.ts'

/** Options of {@link errorPlugin}. */
export interface ErrorPluginOptions {
  /** Serve `index.html` for unknown GETs outside the API (the SPA's client-side routes). */
  spaFallback: boolean
  /** The data home, written as `CODEBOOK_HOME` in every error message answered. */
  home: string
}

/** Paths the SPA fallback must never answer: API, uploads and socket.io. */
function isServerPath(url: string): boolean {
  return /^\/(api|files|socket\.io|docs)(\/|\?|$)/.test(url)
}

/** Maps any error to a status and `{ code, message }`; unknown errors become 500 INTERNAL. */
export function toErrorBody(err: FastifyError | Error): { status: number; code: string; message: string } {
  if (hasZodFastifySchemaValidationErrors(err)) {
    const where = err.validationContext ?? 'request'
    const problems = err.validation.map((v) => {
      const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.')
      return `${where}${path ? `.${path}` : ''}: ${v.message}`
    })
    // Only malformed ids (the shared EntityId): INVALID_ID, so a client tells them from other bad input.
    const onlyIds = err.validation.every((v) => v.message === INVALID_ID_MESSAGE)
    return { status: 400, code: onlyIds ? 'INVALID_ID' : 'VALIDATION_FAILED', message: problems.join('; ') }
  }
  const fastifyError = err as FastifyError
  if (Array.isArray(fastifyError.validation)) {
    return { status: 400, code: 'VALIDATION_FAILED', message: err.message }
  }
  if (err instanceof CodebookError) return { status: statusOf(err), code: err.code, message: err.message }
  // The router refuses a path parameter over maxParamLength (100) before any schema: every
  // parameter of this API is an id (or shorter), so it is one more malformed id.
  if (fastifyError.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return { status: 400, code: 'INVALID_ID', message: 'params: longer than 100 characters, not an id' }
  const status = fastifyError.statusCode
  if (status === 413) return { status, code: 'UPLOAD_TOO_LARGE', message: err.message }
  if (status === 429) return { status, code: 'RATE_LIMITED', message: err.message }
  // Fastify's own client errors (bad JSON, unsupported media type…) keep their stable FST_ codes.
  if (status !== undefined && status >= 400 && status < 500) {
    return { status, code: fastifyError.code ?? 'BAD_REQUEST', message: err.message }
  }
  return { status: 500, code: 'INTERNAL', message: 'internal error; see the server log for the request id' }
}

/**
 * Answers `err` as `{ code, message, reqId }` with the home hidden: the error handler's answer, and
 * Fastify's `frameworkErrors` (a path parameter over maxParamLength, a malformed URL), which the
 * router raises before any route or hook, so they would otherwise leave in Fastify's own shape.
 */
export function sendError(
  err: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
  home: string,
) {
  const { status, code, message } = toErrorBody(err)
  if (status >= 500) request.log.error({ err }, 'request failed')
  else request.log.info({ code, status }, message)
  const body: ErrorBody = {
    code,
    message: hideServerPaths(message, home),
    reqId: String(request.id),
  }
  return reply.code(status).send(body)
}

async function errorPluginImpl(app: FastifyInstance, options: ErrorPluginOptions): Promise<void> {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    sendError(err, request, reply, options.home),
  )

  app.setNotFoundHandler((request, reply) => {
    if (
      options.spaFallback &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      !isServerPath(request.url)
    ) {
      return reply.type('text/html').sendFile('index.html')
    }
    const body: ErrorBody = {
      code: 'NOT_FOUND',
      message: `no route for ${request.method} ${request.url.split('?')[0]}`,
      reqId: String(request.id),
    }
    return reply.code(404).send(body)
  })
}

/** One error handler for the whole app: every error answers `{ code, message, reqId }`. */
export const errorPlugin = fp(errorPluginImpl, { name: 'codebook-errors', fastify: '5.x' })
