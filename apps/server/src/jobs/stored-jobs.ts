import {
  type FinalJobStatus,
  isFinalJobStatus,
  type JobEvent,
  type JobKind,
  type JobStatus,
} from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import { hideServerPaths } from '../http/hide-paths.ts'
import { followChild, hasCode, type StoppableChild } from './follow-child.ts'
import type { JobFeed } from './job-feed.ts'
import { createJobQueue, JobStopped } from './job-queue.ts'
import type { JobEnding } from './job-table.ts'
import { createOrderedUpdates } from './ordered-updates.ts'

/** A running job's child process: its end, a stop, and its pid for tests and metrics. */
export interface JobChild extends StoppableChild {
  child: { pid?: number | undefined }
}

/** What a job's `launch` may use while the job runs. */
export interface JobContext {
  /** Runs `work` after every earlier update of the job (writes then events, in order, before its final state). */
  inOrder(work: () => Promise<void>): Promise<void>
  /** Appends an event of the job to the feed (call it inside `inOrder` when it follows a write). */
  record(type: string, data: unknown): Promise<JobEvent | undefined>
  /** Aborts when the job is cancelled or the server stops. */
  signal: AbortSignal
}

/**
 * What one kind of stored job gives {@link createStoredJobs}. `R` is the record clients see (with
 * `id` and `status`); `S` is what the repository stores (the record itself, or the record with
 * server-side parameters).
 */
export interface StoredJobKind<R extends { id: string; status: JobStatus }, S> {
  /** The kind: names it in the feed, in logs (`run`, `evaluation`, `study`) and in error codes (`RUN_NOT_FOUND`). */
  kind: JobKind
  /** Jobs that run at once. */
  concurrency: number
  /** Jobs that may wait at once; more → 429 `QUEUE_FULL`. Unbounded when absent. */
  maxQueued?: number
  /** The 429 message when `maxQueued` jobs wait (defaults to a generic one). */
  queueFullMessage?: (waiting: number) => string
  store: {
    get(id: string): Promise<S | undefined>
    /** queued → running; undefined when no longer queued (cancelled meanwhile). */
    markRunning(id: string): Promise<S | undefined>
    /** Final state, only from queued or running; undefined when it had already ended. */
    finish(id: string, ending: JobEnding): Promise<R | undefined>
    /** `running` → `interrupted` at start-up; returns them. */
    interruptRunning(): Promise<R[]>
    /** Ids of queued jobs, oldest first. */
    queuedIds(): Promise<string[]>
  }
  /** The client record of a stored job. */
  recordOf(stored: S): R
  /**
   * Starts the job's child process. Progress and results it reports are written and recorded
   * through `context.inOrder`, so they reach clients in order and before the job's final state.
   */
  launch(stored: S, context: JobContext): JobChild | Promise<JobChild>
  /** Called in order just before a job's final state is stored (a run logs why it ended). */
  ending?(id: string, ending: JobEnding, record: JobContext['record']): Promise<void>
  /** Kinds that can continue an ended job (runs, from their checkpoint). */
  resume?: {
    from: readonly FinalJobStatus[]
    /** One of `from` → queued when the job can continue; undefined otherwise. */
    requeue(id: string): Promise<R | undefined>
    /** Why a job in one of `from` cannot continue (a run without a checkpoint). */
    whyNot(record: R): string
  }
}

/** The one lifecycle of {@link createStoredJobs}; each kind's service adds its own API. */
export interface StoredJobs<R, S> {
  /** The stored job. @throws ApiError 404 `<KIND>_NOT_FOUND`. */
  stored(id: string): Promise<S>
  /** @throws ApiError 429 `QUEUE_FULL` (checked before a job is stored), 503 `SHUTTING_DOWN`. */
  ensureRoom(): void
  /** Announces a freshly stored `queued` job and queues it. */
  submit(record: R): Promise<void>
  /**
   * Cancels a queued or running job (a running one's child is stopped) and resolves with its
   * record once it is `cancelled`. @throws ApiError 409 `<KIND>_FINISHED` when it had ended.
   */
  cancel(id: string): Promise<R>
  /**
   * Queues an ended job again where the kind allows it. @throws ApiError 409
   * `<KIND>_NOT_RESUMABLE` when the job is in another state or cannot continue.
   */
  resume(id: string): Promise<R>
  /** Cancels the job unless it has ended, then waits until its updates are written. */
  stop(id: string): Promise<void>
  /** Resolves with the record once the job is no longer queued or running. */
  settled(id: string): Promise<R>
  /** Stored events of the job with seq > after, in order, at most `limit`. @throws ApiError 404. */
  events(id: string, after: number, limit?: number): Promise<JobEvent[]>
  /** PID of the running job's child process, if any. */
  childPid(id: string): number | undefined
  /** Start-up: `running` jobs left by the last server become `interrupted`; queued ones run again. */
  start(): Promise<void>
  /** Stops: running jobs are stopped and marked `interrupted`; queued ones stay queued. */
  shutdown(): Promise<void>
}

/** Where {@link createStoredJobs} stores and sends what happens. */
export interface StoredJobsDeps {
  feed: JobFeed
  log: FastifyBaseLogger
  /** The server's home: failure messages name no path under it. */
  home: string
}

/**
 * The lifecycle every stored job shares, whatever its kind: a FIFO job queue, the record's status
 * (queued → running → succeeded | failed | cancelled | interrupted, and back to queued on resume),
 * a child process stopped on cancel and shutdown, restart recovery, and one seq'd event feed
 * (`state` on every status change, then the kind's own events) written in order.
 */
export function createStoredJobs<R extends { id: string; status: JobStatus }, S>(
  kind: StoredJobKind<R, S>,
  deps: StoredJobsDeps,
): StoredJobs<R, S> {
  const { store, kind: noun } = kind
  const { feed, log } = deps
  const prefix = noun.toUpperCase()
  const children = new Map<string, JobChild>()
  const { inOrder, pending, all } = createOrderedUpdates(log, noun)
  const record = (id: string) => (type: string, data: unknown) => feed.record(noun, id, type, data)
  const announce = (r: R) => feed.record(noun, r.id, 'state', r)

  async function stored(id: string): Promise<S> {
    const s = await store.get(id)
    if (s === undefined) throw new ApiError(404, `${prefix}_NOT_FOUND`, `no ${noun} with id ${id}`)
    return s
  }
  const current = async (id: string) => kind.recordOf(await stored(id))

  async function end(id: string, ending: JobEnding): Promise<void> {
    await inOrder(id, async () => {
      await kind.ending?.(id, ending, record(id))
      const final = await store.finish(id, ending)
      if (final) await announce(final)
    })
  }

  const stopped = (stop: JobStopped): JobEnding => stop.ending(`${prefix}_CANCELLED`, noun)

  async function execute(id: string, signal: AbortSignal): Promise<void> {
    const running = await store.markRunning(id)
    if (running === undefined) return // cancelled while queued
    await inOrder(id, async () => void (await announce(kind.recordOf(running))))
    try {
      const child = await kind.launch(running, {
        inOrder: (work) => inOrder(id, work),
        record: record(id),
        signal,
      })
      children.set(id, child)
      try {
        // Stopped between markRunning and here: followChild stops the child at once.
        await followChild(signal, child)
      } finally {
        children.delete(id)
      }
      await end(id, { status: 'succeeded' })
    } catch (err) {
      if (signal.aborted) {
        await end(
          id,
          stopped(signal.reason instanceof JobStopped ? signal.reason : new JobStopped('cancelled')),
        )
        return
      }
      const code = hasCode(err) ? err.code : `${prefix}_FAILED`
      const message = hideServerPaths(err instanceof Error ? err.message : String(err), deps.home)
      log.warn({ err, kind: noun, job: id }, `${noun} failed`)
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
              new ApiError(
                429,
                'QUEUE_FULL',
                kind.queueFullMessage?.(waiting) ??
                  `${waiting} ${noun} jobs are already waiting; try again later`,
              ),
          }
        : {}),
      closedError: () => new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down'),
      run: execute,
      // Cancelled before its turn; one left waiting at shutdown stays queued for the next start.
      dropped: (id, stop) => (stop.why === 'cancelled' ? end(id, stopped(stop)) : undefined),
      async recover() {
        const interrupted = await store.interruptRunning()
        for (const r of interrupted) await announce(r)
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
    const before = await current(id)
    if (await jobs.cancel(id)) {
      await pending(id)
      return current(id)
    }
    if (isFinalJobStatus(before.status))
      throw new ApiError(409, `${prefix}_FINISHED`, `${noun} ${id} has already ended (${before.status})`)
    // Queued in the table but not in this queue (a race with start-up): end it here.
    await end(id, stopped(new JobStopped('cancelled')))
    return current(id)
  }

  async function resume(id: string): Promise<R> {
    jobs.ensureRoom()
    const before = await current(id)
    const held = jobs.state(id) !== undefined
    const requeued = held || kind.resume === undefined ? undefined : await kind.resume.requeue(id)
    if (requeued === undefined) {
      const from = kind.resume?.from ?? []
      throw new ApiError(
        409,
        `${prefix}_NOT_RESUMABLE`,
        kind.resume && !held && (from as readonly JobStatus[]).includes(before.status)
          ? kind.resume.whyNot(before)
          : from.length === 0
            ? `${noun}s do not resume; start a new one`
            : `${noun} ${id} is ${before.status}; only ${from.join(', ')} ${noun}s resume`,
      )
    }
    await inOrder(id, async () => void (await announce(requeued)))
    jobs.submit(id)
    return requeued
  }

  return {
    stored,
    ensureRoom: () => jobs.ensureRoom(),
    async submit(r) {
      await inOrder(r.id, async () => void (await announce(r)))
      jobs.submit(r.id)
    },
    cancel,
    resume,
    async stop(id) {
      if (!isFinalJobStatus((await current(id)).status)) await cancel(id).catch(() => undefined)
      await pending(id)
    },
    async settled(id) {
      await jobs.settled(id)
      await pending(id)
      return current(id)
    },
    async events(id, after, limit) {
      await stored(id)
      return feed.eventsAfter(noun, id, after, limit)
    },
    childPid: (id) => children.get(id)?.child.pid,
    start: () => jobs.start(),
    async shutdown() {
      await jobs.close()
      await all()
      await feed.flushed()
    },
  }
}
