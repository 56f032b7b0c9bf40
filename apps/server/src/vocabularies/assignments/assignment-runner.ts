import { rm } from 'node:fs/promises'
import type { FastifyBaseLogger } from 'fastify'
import { childCommand } from '../../child/child-command.ts'
import { ChildJobError, startChildJob } from '../../child/child-job.ts'
import { ApiError } from '../../http/api-error.ts'
import { createJobQueue, JobStopped } from '../../jobs/job-queue.ts'
import { type AssignmentJob, partialDir } from './compute-assignments.ts'

/** Computations that may wait behind the running one; more answer 503 `ASSIGNMENTS_BUSY`. */
export const MAX_QUEUED_ASSIGNMENTS = 4

/** HTTP status of a coded error the child reports. */
const STATUS_BY_CODE: Record<string, number> = { DATASET_DELETED: 409, ASSIGNMENTS_SHAPE_MISMATCH: 409 }

function cancelled(): ApiError {
  return new ApiError(
    409,
    'ASSIGNMENTS_CANCELLED',
    'the computation was cancelled (vocabulary deleted or server stopping)',
  )
}

const shuttingDown = () => new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down')

/** Computes assignments in a child process, one at a time. */
export interface AssignmentRunner {
  /**
   * Resolves once `job.outDir` holds the results. Calls with the same key while one is queued or
   * running share it. @throws ApiError 503 `ASSIGNMENTS_BUSY`, the child's coded error, 500 `ASSIGNMENTS_CRASHED`.
   */
  compute(key: string, job: AssignmentJob): Promise<void>
  /** Drops a queued computation or kills the running one (its partial output is removed). */
  cancel(key: string): Promise<void>
  /** Cancels everything; later calls fail 503 `SHUTTING_DOWN`. */
  close(): Promise<void>
}

interface Task {
  job: AssignmentJob
  done: Promise<void>
  resolve(): void
  reject(err: Error): void
}

/** Options of {@link createAssignmentRunner}. */
export interface AssignmentRunnerOptions {
  /** Rewrites server paths out of a child's error message before it reaches a client. */
  hidePaths: (message: string) => string
  log: FastifyBaseLogger
}

/**
 * The parent side of the assignment child process. A computation is CPU-bound (a distance pass
 * over every vector), so it never runs on the server's event loop, and one at a time (a job of
 * the server's job queue) so it takes at most one process's share of the machine next to running
 * K-means jobs.
 */
export function createAssignmentRunner(options: AssignmentRunnerOptions): AssignmentRunner {
  const command = childCommand(import.meta.url, './assignment-child')
  const tasks = new Map<string, Task>()

  /** Settles task `key` (its partial output removed on failure). */
  async function finish(key: string, err: Error | undefined): Promise<void> {
    const task = tasks.get(key)
    if (task === undefined) return
    if (err !== undefined) await rm(partialDir(task.job.outDir), { recursive: true, force: true })
    tasks.delete(key)
    if (err === undefined) task.resolve()
    else task.reject(err)
  }

  async function compute(key: string, signal: AbortSignal): Promise<void> {
    const task = tasks.get(key)
    if (task === undefined) return
    const proc = startChildJob<AssignmentJob, never>(command, task.job, {
      onMessage: () => undefined,
      crashed: (exit) =>
        new ChildJobError('ASSIGNMENTS_CRASHED', `the assignment process exited (${exit}) before finishing`),
    })
    // The child holds nothing to close: a stop kills it.
    const kill = () => void proc.stop(0)
    signal.addEventListener('abort', kill, { once: true })
    try {
      await proc.done
      await finish(key, undefined)
    } catch (err) {
      const coded = err as ChildJobError
      await finish(
        key,
        signal.aborted
          ? cancelled()
          : new ApiError(STATUS_BY_CODE[coded.code] ?? 500, coded.code, options.hidePaths(coded.message)),
      )
    } finally {
      signal.removeEventListener('abort', kill)
    }
  }

  const queue = createJobQueue(
    {
      name: 'assignment computation',
      concurrency: 1,
      maxQueued: MAX_QUEUED_ASSIGNMENTS,
      queueFull: (waiting) =>
        new ApiError(
          503,
          'ASSIGNMENTS_BUSY',
          `${waiting} assignment computations are already waiting; retry when they have finished`,
        ),
      closedError: shuttingDown,
      run: compute,
      dropped: (key, stop) => finish(key, stop.why === 'cancelled' ? cancelled() : shuttingDown()),
    },
    options.log,
  )

  return {
    compute(key, job) {
      const existing = tasks.get(key)
      if (existing) return existing.done
      try {
        queue.ensureRoom()
      } catch (err) {
        return Promise.reject(err)
      }
      let resolve!: () => void
      let reject!: (err: Error) => void
      const done = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      // A client that gave up must not turn a failure into an unhandled rejection.
      done.catch(() => undefined)
      tasks.set(key, { job, done, resolve, reject })
      queue.submit(key)
      return done
    },

    async cancel(key) {
      await queue.cancel(key, new JobStopped('cancelled'))
    },

    close: () => queue.close(),
  }
}
