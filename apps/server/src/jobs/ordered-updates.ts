import type { FastifyBaseLogger } from 'fastify'

/** Per-job chains of writes and emits (see {@link createOrderedUpdates}). */
export interface OrderedUpdates {
  /** Runs `work` after every earlier update of job `id`; a failure is logged, never thrown. */
  inOrder(id: string, work: () => Promise<void>): Promise<void>
  /** Resolves once the updates of job `id` queued so far are done. */
  pending(id: string): Promise<unknown> | undefined
  /** Resolves once every update queued so far is done. */
  all(): Promise<unknown>
}

/**
 * One promise chain per job, so a job's stored updates and the events that announce them reach
 * clients in the order they happened even though each write is asynchronous.
 * `what` names the job in the log (`evaluation`, `study`).
 */
export function createOrderedUpdates(log: FastifyBaseLogger, what: string): OrderedUpdates {
  const chains = new Map<string, Promise<unknown>>()
  return {
    inOrder(id, work) {
      const next = (chains.get(id) ?? Promise.resolve()).then(work).catch((err) => {
        log.error({ err, job: id }, `${what} update could not be stored`)
      })
      chains.set(id, next)
      void next.then(() => {
        if (chains.get(id) === next) chains.delete(id)
      })
      return next
    },
    pending: (id) => chains.get(id),
    all: () => Promise.all([...chains.values()]),
  }
}
