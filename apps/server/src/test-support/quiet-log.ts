import type { FastifyBaseLogger } from 'fastify'
import { pino } from 'pino'

/** A real pino logger that writes only errors: for services and queues tested without an app. */
export function quietLog(): FastifyBaseLogger {
  return pino({ level: 'error' })
}
