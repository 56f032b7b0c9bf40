import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from './api-error.ts'

/** Deepest nesting the guard follows (bodies are bounded in size, and in depth by their schemas). */
const MAX_DEPTH = 64

/** The path of the first string (or key) under `value` holding a NUL, if any; plain objects (or, at the top, `anyObject`) and arrays only. */
function firstNul(value: unknown, path: string, depth = 0, anyObject = false): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = firstNul(value[i], `${path}[${i}]`, depth + 1)
      if (at) return at
    }
    return undefined
  }
  // Streams and buffers (uploads) are not inspected: only what a JSON or query parser made (the
  // router's params and query objects have prototypes of their own: `anyObject`).
  const proto = Object.getPrototypeOf(value)
  if (!anyObject && proto !== Object.prototype && proto !== null) return undefined
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return `${path} key`
    const at = firstNul(item, `${path}.${key}`, depth + 1)
    if (at) return at
  }
  return undefined
}

/**
 * Refuses a NUL character anywhere in a route's params, query or JSON body with 400
 * `NUL_IN_INPUT` naming where, before any handler or query runs: PostgreSQL text cannot hold
 * it, and the database's error (a 500 naming the SQL) must never be the answer.
 */
async function nulGuardImpl(app: FastifyInstance): Promise<void> {
  app.addHook('preValidation', async (request) => {
    for (const [where, value, anyObject] of [
      ['params', request.params, true],
      ['query', request.query, true],
      ['body', request.body, false],
    ] as const) {
      const at = firstNul(value, where, 0, anyObject)
      if (at) throw new ApiError(400, 'NUL_IN_INPUT', `${at}: a NUL character (\\u0000) is not accepted`)
    }
  })
}

/** Registers the NUL guard on every route (see {@link nulGuardImpl}). */
export const nulGuardPlugin = fp(nulGuardImpl, { name: 'codebook-nul-guard', fastify: '5.x' })
