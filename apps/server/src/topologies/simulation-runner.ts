import { type ChildProcess, fork } from 'node:child_process'
import type { FastifyBaseLogger } from 'fastify'
import { childCommand } from '../child/child-command.ts'
import { ApiError } from '../http/api-error.ts'
import { createRequestQueue } from '../jobs/request-queue.ts'
import type { SimulationJob, SimulationReply } from './simulation-job.ts'

/** Options of {@link createSimulationRunner}. */
export interface SimulationRunnerOptions {
  /** Longest one what-if may run (the process start included) before it is killed: 422 `SIM_TIMEOUT`. */
  timeoutMs: number
  /** What-ifs that may wait behind the running one; more → 503 `SIM_BUSY`. */
  maxQueued: number
  /** Heap limit of the simulation process, MB: a schedule too large fails it (500 `SIM_CRASHED`), not the server. */
  maxHeapMb?: number
}

/** Runs what-if simulations one at a time in a separate process. */
export interface SimulationRunner {
  run(job: SimulationJob): Promise<unknown>
  /** Fails waiting jobs with 503 `SIM_CLOSED` and stops the process. */
  close(): Promise<void>
  /** pid of the simulation process, if one is running (tests). */
  pid(): number | undefined
}

/**
 * Default limits: 120 s per what-if, 4 waiting, 2 GB of heap. Measured here: the CLI's default
 * comparison (simple, mst, bucket, chain, chain-random) of 1 GB over the 150-node papers topology
 * takes ≈ 44 s, most of it the random chain, so 30 s would refuse the demo's own case.
 */
export const SIMULATION_DEFAULTS = { timeoutMs: 120_000, maxQueued: 4, maxHeapMb: 2048 } as const

/**
 * A long-lived simulation process, started on first use and reused (starting it costs ≈ 1–3 s).
 * What-ifs are jobs of the server's job queue: one at a time in arrival order; one that exceeds
 * `timeoutMs` kills the process (the next job starts a fresh one), so no request can hold the
 * server or the process for long.
 */
export function createSimulationRunner(
  options: SimulationRunnerOptions,
  log: FastifyBaseLogger,
): SimulationRunner {
  const { entry, execArgv } = childCommand(import.meta.url, './simulation-child', {
    maxHeapMb: options.maxHeapMb ?? SIMULATION_DEFAULTS.maxHeapMb,
  })
  let child: ChildProcess | undefined
  /** Every process not yet exited, a killed one included: close waits for all of them. */
  const alive = new Set<ChildProcess>()
  let nextId = 1

  function spawnChild(): ChildProcess {
    const c = fork(entry, [], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    alive.add(c)
    c.on('exit', () => {
      alive.delete(c)
      if (child === c) child = undefined
    })
    return c
  }

  function kill(c: ChildProcess): void {
    if (child === c) child = undefined
    c.kill('SIGKILL')
  }

  /** Sends `job` to the process and waits for its reply, its crash, the time limit or the signal. */
  function simulate(job: SimulationJob, signal: AbortSignal): Promise<unknown> {
    child ??= spawnChild()
    const c = child
    const id = nextId++
    return new Promise((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer)
        c.off('message', onMessage)
        c.off('exit', onExit)
        signal.removeEventListener('abort', onAbort)
        settle()
      }
      const onMessage = (raw: unknown) => {
        const reply = raw as SimulationReply
        if (reply.id !== id) return
        finish(() =>
          reply.ok ? resolve(reply.result) : reject(new ApiError(reply.status, reply.code, reply.message)),
        )
      }
      const onExit = (code: number | null, exitSignal: NodeJS.Signals | null) =>
        finish(() =>
          reject(
            new ApiError(
              500,
              'SIM_CRASHED',
              `the simulation process exited (${exitSignal ?? `code ${code}`}); the what-if may be too large for its memory`,
            ),
          ),
        )
      const onAbort = () => {
        kill(c)
        finish(() => reject(signal.reason))
      }
      const timer = setTimeout(() => {
        kill(c)
        finish(() =>
          reject(
            new ApiError(
              422,
              'SIM_TIMEOUT',
              `the simulation took longer than ${options.timeoutMs / 1000} s and was stopped: use fewer nodes, fewer bytes or a larger chunkBytes`,
            ),
          ),
        )
      }, options.timeoutMs)
      c.on('message', onMessage)
      c.once('exit', onExit)
      signal.addEventListener('abort', onAbort, { once: true })
      c.send({ id, job })
    })
  }

  const closedError = () => new ApiError(503, 'SIM_CLOSED', 'the server is shutting down')
  const simulations = createRequestQueue<SimulationJob, unknown>(
    {
      name: 'simulation',
      concurrency: 1,
      maxQueued: options.maxQueued,
      queueFull: (waiting) =>
        new ApiError(503, 'SIM_BUSY', `${waiting} simulations are waiting already; retry in a moment`),
      closedError,
      run: simulate,
    },
    log,
  )

  return {
    run: (job) => simulations.perform(job),

    async close() {
      await simulations.queue.close()
      child = undefined
      const exits = [...alive].map((c) => new Promise<void>((resolve) => c.once('exit', () => resolve())))
      for (const c of alive) c.kill('SIGKILL')
      await Promise.all(exits)
    },

    pid: () => child?.pid,
  }
}
