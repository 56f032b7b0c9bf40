import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import { followChild, hasCode, type StoppableChild } from './follow-child.ts'
import { createJobQueue, JobStopped } from './job-queue.ts'
import { createOrderedUpdates } from './ordered-updates.ts'

/** How a stored job ended (the statuses every stored job kind shares). */
export interface StoredJobEnding {
  status: 'succeeded' | 'failed' | 'cancelled' | 'interrupted'
  error?: { code: string; message: string }
}

/** Statuses after which a stored job never changes again. */
export const FINAL_JOB_STATUSES: readonly string[] = ['succeeded', 'failed', 'cancelled', 'interrupted']

/** A running job's child process: its end, a stop, and its pid for tests and metrics. */
export interface JobChild extends StoppableChild {
  child: { pid?: number | undefined }
}

/**
 * What one kind of stored job (an evaluation, a study, …) gives {@link createStoredChildJobs}.
 * `R` is the record clients see (with `id` and `status`); `S` is what the repository stores
 * (the record itself, or the record with server-side parameters).
 */
export interface StoredChildJobKind<R extends { id: string; status: string }, S> {
  /** Names the kind in logs and messages: `evaluation`, `study`. */
  noun: string
  /** Code prefix of the kind's errors: `EVALUATION` → `EVALUATION_NOT_FOUND`, `_FINISHED`, … */
  codePrefix: string
  /** Jobs that run at once. */
  concurrency: number
  /** Jobs that may wait at once; more → 429 `QUEUE_FULL`. Unbounded when absent. */
  maxQueued?: number
  store: {
    get(id: string): Promise<S | undefined>
    /** queued → running; undefined when no longer queued (cancelled meanwhile). */
    markRunning(id: string): Promise<S | undefined>
    /** Final state, only from queued or running; undefined when it had already ended. */
    finish(id: string, ending: StoredJobEnding): Promise<R | undefined>
    /** `running` → `interrupted` at start-up; returns them. */
    interruptRunning(): Promise<R[]>
    /** Ids of queued jobs, oldest first. */
    queuedIds(): Promise<string[]>
  }
  /** The client record of a stored job. */
  recordOf(stored: S): R
  /** Sends a job's new state to clients. */
  emitState(record: R): void
  /**
   * Starts the job's child process. Progress and results it reports are written and emitted
   * through `inOrder`, so they reach clients in order and before the job's final state.
   */
  launch(stored: S, inOrder: (work: () => Promise<void>) => Promise<void>): JobChild | Promise<JobChild>
}

/** The shared lifecycle of {@link createStoredChildJobs}; the kind's service adds its own API. */
export interface StoredChildJobs<R, S> {
  /** The stored job. @throws ApiError 404 `<PREFIX>_NOT_FOUND`. */
  stored(id: string): Promise<S>
  /** @throws ApiError 429 `QUEUE_FULL` (checked before a job is stored), 503 `SHUTTING_DOWN`. */
  ensureRoom(): void
  /** Announces a freshly stored `queued` job and queues it. */
  submit(record: R): Promise<void>
  /**
   * Cancels a queued or running job (a running one's child is stopped) and resolves with its
   * record once it is `cancelled`. @throws ApiError 409 `<PREFIX>_FINISHED` when it had ended.
   */
  cancel(id: string): Promise<R>
  /** Cancels the job unless it has ended, then waits until its updates are written. */
  stop(id: string): Promise<void>
  /** Resolves with the record once the job is no longer queued or running. */
  settled(id: string): Promise<R>
  /** PID of the running job's child process, if any. */
  childPid(id: string): number | undefined
  /** Start-up: `running` jobs left by the last server become `interrupted`; queued ones run again. */
  start(): Promise<void>
  /** Stops: running jobs are stopped and marked `interrupted`; queued ones stay queued. */
  shutdown(): Promise<void>
}

/**
 * The lifecycle every stored job that runs in a child process shares: a FIFO job queue, the
 * record's status (queued → running → succeeded | failed | cancelled | interrupted), a child
 * process stopped on cancel and shutdown, restart recovery, and ordered updates.
 */
export function createStoredChildJobs<R extends { id: string; status: string }, S>(
  kind: StoredChildJobKind<R, S>,
  log: FastifyBaseLogger,
): StoredChildJobs<R, S> {
  const { store, noun, codePrefix } = kind
  const children = new Map<string, JobChild>()
  const { inOrder, pending, all } = createOrderedUpdates(log, noun)

  async function stored(id: string): Promise<S> {
    const s = await store.get(id)
    if (s === undefined) throw new ApiError(404, `${codePrefix}_NOT_FOUND`, `no ${noun} with id ${id}`)
    return s
  }
  const record = async (id: string) => kind.recordOf(await stored(id))

  async function end(id: string, ending: StoredJobEnding): Promise<void> {
    await inOrder(id, async () => {
      const final = await store.finish(id, ending)
      if (final) kind.emitState(final)
    })
  }

  const stopped = (stop: JobStopped): StoredJobEnding => stop.ending(`${codePrefix}_CANCELLED`, noun)

  async function execute(id: string, signal: AbortSignal): Promise<void> {
    const running = await store.markRunning(id)
    if (running === undefined) return // cancelled while queued
    await inOrder(id, async () => kind.emitState(kind.recordOf(running)))
    try {
      const child = await kind.launch(running, (work) => inOrder(id, work))
      children.set(id, child)
      try {
        // Stopped between markRunning and here: followChild stops the child at once.
        await followChild(signal, child)
      } finally {
        children.delete(id)
      }
      await end(id, { status: 'succeeded' })
    } catch (err) {
      if (signal.reason instanceof JobStopped) {
        await end(id, stopped(signal.reason))
        return
      }
      const code = hasCode(err) ? err.code : `${codePrefix}_FAILED`
      const message = err instanceof Error ? err.message : String(err)
      log.warn({ err, job: id }, `${noun} failed`)
      await end(id, { status: 'failed', error: { code, message } })
    }
  }

  const jobs = createJobQueue(
    {
      name: noun,
      concurrency: kind.concurrency,
      ...(kind.maxQueued !== undefined
        ? {
            maxQueued: kind.maxQueued,
            queueFull: (waiting: number) =>
              new ApiError(429, 'QUEUE_FULL', `${waiting} ${noun} jobs are already waiting; try again later`),
          }
        : {}),
      closedError: () => new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down'),
      run: execute,
      // Cancelled before its turn; one left waiting at shutdown stays queued for the next start.
      dropped: (id, stop) => (stop.why === 'cancelled' ? end(id, stopped(stop)) : undefined),
      async recover() {
        const interrupted = await store.interruptRunning()
        for (const r of interrupted) kind.emitState(r)
        if (interrupted.length > 0)
          log.warn(
            { count: interrupted.length },
            `${noun} jobs cut off by the last shutdown marked interrupted`,
          )
        return store.queuedIds()
      },
    },
    log,
  )

  async function cancel(id: string): Promise<R> {
    const current = await record(id)
    if (await jobs.cancel(id)) {
      await pending(id)
      return record(id)
    }
    if (FINAL_JOB_STATUSES.includes(current.status))
      throw new ApiError(409, `${codePrefix}_FINISHED`, `${noun} ${id} has already ended (${current.status})`)
    // Queued in the table but not in this queue (a race with start-up): end it here.
    await end(id, stopped(new JobStopped('cancelled')))
    return record(id)
  }

  return {
    stored,
    ensureRoom: () => jobs.ensureRoom(),
    async submit(r) {
      await inOrder(r.id, async () => kind.emitState(r))
      jobs.submit(r.id)
    },
    cancel,
    async stop(id) {
      if (!FINAL_JOB_STATUSES.includes((await record(id)).status)) await cancel(id).catch(() => undefined)
      await pending(id)
    },
    async settled(id) {
      await jobs.settled(id)
      await pending(id)
      return record(id)
    },
    childPid: (id) => children.get(id)?.child.pid,
    start: () => jobs.start(),
    async shutdown() {
      await jobs.close()
      await all()
    },
  }
}
