import type { RunEvent, RunEventType, RunLogData, RunProgressData } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { RunRepo } from './run-repo.ts'

/** A run's stored, emitted event log. */
export interface RunEventLog {
  /** Appends an event and emits it; appends of one run are serialized so seq and emit order agree. */
  record(runId: string, type: RunEventType, data: unknown): Promise<RunEvent | undefined>
  /** A `log` event: what the run is doing, for the run page's log panel. */
  say(runId: string, level: RunLogData['level'], message: string): Promise<unknown>
  /** A `progress` event. */
  progressed(runId: string, data: RunProgressData): Promise<unknown>
  /** Resolves once run `id`'s appends so far are stored (every run's without `id`). */
  flushed(id?: string): Promise<unknown>
}

/**
 * Creates the {@link RunEventLog}: every event is stored before it is emitted (`emit` is called
 * once per stored event, in seq order per run); a failed append is logged, never thrown.
 */
export function createRunEventLog(
  repo: Pick<RunRepo, 'appendEvent'>,
  emit: (runId: string, event: RunEvent) => void,
  log: FastifyBaseLogger,
): RunEventLog {
  /** Per-run chain of event appends: seq order in the DB = emit order. */
  const chains = new Map<string, Promise<RunEvent | undefined>>()

  function record(runId: string, type: RunEventType, data: unknown): Promise<RunEvent | undefined> {
    const previous = chains.get(runId) ?? Promise.resolve(undefined)
    const next = previous.then(async () => {
      try {
        const event = await repo.appendEvent(runId, type, data)
        emit(runId, event)
        return event
      } catch (err) {
        log.error({ err, runId, type }, 'run event could not be stored')
        return undefined
      }
    })
    chains.set(runId, next)
    void next.then(() => {
      if (chains.get(runId) === next) chains.delete(runId)
    })
    return next
  }

  return {
    record,
    say: (runId, level, message) => record(runId, 'log', { level, message } satisfies RunLogData),
    progressed: (runId, data) => record(runId, 'progress', data),
    flushed: (id) => (id === undefined ? Promise.all([...chains.values()]) : Promise.resolve(chains.get(id))),
  }
}
