import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { createJobQueue, type JobKind, type JobQueue, JobStopped } from './job-queue.ts'

/** A kind of work a request waits for (a what-if simulation, an image-set check): nothing is stored. */
export interface RequestKind<Input, Result>
  extends Pick<JobKind, 'name' | 'concurrency' | 'maxQueued' | 'queueFull' | 'closedError'> {
  /** Does the work; `signal` aborts with a {@link JobStopped} when the queue closes. */
  run(input: Input, signal: AbortSignal): Promise<Result>
}

/** A {@link JobQueue} whose jobs are requests: `perform` resolves with the job's result. */
export interface RequestQueue<Input, Result> {
  /**
   * Queues `input` and resolves with its result once it has run; rejects with the job's error, or
   * with the kind's `closedError` when the queue closes first. @throws (rejects) `queueFull`.
   */
  perform(input: Input): Promise<Result>
  /** The queue underneath (sizes, close). */
  queue: JobQueue
}

interface Pending<Input, Result> {
  input: Input
  resolve(result: Result): void
  reject(err: unknown): void
}

/** Creates a {@link RequestQueue} over the server's one job model. */
export function createRequestQueue<Input, Result>(
  kind: RequestKind<Input, Result>,
  log: FastifyBaseLogger,
): RequestQueue<Input, Result> {
  const pending = new Map<string, Pending<Input, Result>>()

  function take(id: string): Pending<Input, Result> | undefined {
    const p = pending.get(id)
    pending.delete(id)
    return p
  }

  const queue = createJobQueue(
    {
      ...kind,
      async run(id, signal) {
        const p = pending.get(id)
        if (p === undefined) return
        try {
          const result = await kind.run(p.input, signal)
          take(id)?.resolve(result)
        } catch (err) {
          take(id)?.reject(signal.reason instanceof JobStopped ? kind.closedError() : err)
        }
      },
      dropped(id, stop) {
        take(id)?.reject(stop.why === 'interrupted' ? kind.closedError() : stop)
      },
    },
    log,
  )

  return {
    perform(input) {
      return new Promise<Result>((resolve, reject) => {
        const id = randomUUID()
        pending.set(id, { input, resolve, reject })
        try {
          queue.submit(id)
        } catch (err) {
          pending.delete(id)
          reject(err)
        }
      })
    },
    queue,
  }
}
