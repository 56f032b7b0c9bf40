import { type ChildProcess, fork } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { childCommand } from '../../child/child-command.ts'
import { ApiError } from '../../http/api-error.ts'
import type { AssignmentFromChild, AssignmentToChild } from './assignment-child.ts'
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
  key: string
  job: AssignmentJob
  done: Promise<void>
  resolve(): void
  reject(err: Error): void
  child?: ChildProcess
  exited?: Promise<void>
  /** Set when `cancel` killed the child: its exit is a cancellation, not a crash. */
  cancelled?: boolean
}

/** Options of {@link createAssignmentRunner}. */
export interface AssignmentRunnerOptions {
  /** Rewrites server paths out of a child's error message before it reaches a client. */
  hidePaths: (message: string) => string
}

/**
 * The parent side of the assignment child process. A computation is CPU-bound (a distance pass
 * over every vector), so it never runs on the server's event loop, and one at a time so it
 * takes at most one process's share of the machine next to running K-means jobs.
 */
export function createAssignmentRunner(options: AssignmentRunnerOptions): AssignmentRunner {
  const { entry, execArgv } = childCommand(import.meta.url, './assignment-child')
  const tasks = new Map<string, Task>()
  const queue: Task[] = []
  let running: Task | undefined
  let closed = false

  function failure(m: Extract<AssignmentFromChild, { type: 'error' }>): ApiError {
    return new ApiError(STATUS_BY_CODE[m.code] ?? 500, m.code, options.hidePaths(m.message))
  }

  function start(task: Task): void {
    running = task
    const child = fork(entry, [], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    task.child = child
    let answer: AssignmentFromChild | undefined
    child.on('message', (m: AssignmentFromChild) => {
      answer = m
    })
    task.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        const outcome =
          answer?.type === 'done'
            ? undefined
            : task.cancelled
              ? cancelled()
              : answer?.type === 'error'
                ? failure(answer)
                : new ApiError(
                    500,
                    'ASSIGNMENTS_CRASHED',
                    `the assignment process exited (${signal ?? `code ${code}`}) before finishing`,
                  )
        void finish(task, outcome).then(resolve)
      })
    })
    child.send({ type: 'start', job: task.job } satisfies AssignmentToChild)
  }

  async function finish(task: Task, err: Error | undefined): Promise<void> {
    if (err !== undefined) await rm(partialDir(task.job.outDir), { recursive: true, force: true })
    tasks.delete(task.key)
    if (running === task) running = undefined
    if (err === undefined) task.resolve()
    else task.reject(err)
    pump()
  }

  function pump(): void {
    if (running || closed) return
    const next = queue.shift()
    if (next) start(next)
  }

  return {
    compute(key, job) {
      if (closed) return Promise.reject(new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down'))
      const existing = tasks.get(key)
      if (existing) return existing.done
      if (queue.length >= MAX_QUEUED_ASSIGNMENTS)
        return Promise.reject(
          new ApiError(
            503,
            'ASSIGNMENTS_BUSY',
            `${queue.length} assignment computations are already waiting; retry when they have finished`,
          ),
        )
      let resolve!: () => void
      let reject!: (err: Error) => void
      const done = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      // A client that gave up must not turn a failure into an unhandled rejection.
      done.catch(() => undefined)
      const task: Task = { key, job, done, resolve, reject }
      tasks.set(key, task)
      queue.push(task)
      pump()
      return done
    },

    async cancel(key) {
      const task = tasks.get(key)
      if (!task) return
      const waiting = queue.indexOf(task)
      if (waiting >= 0) {
        queue.splice(waiting, 1)
        await finish(task, cancelled())
        return
      }
      task.cancelled = true
      task.child?.kill('SIGKILL')
      await task.exited
    },

    async close() {
      closed = true
      for (const task of [...queue]) {
        queue.splice(queue.indexOf(task), 1)
        await finish(task, new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down'))
      }
      if (running) await this.cancel(running.key)
    },
  }
}
