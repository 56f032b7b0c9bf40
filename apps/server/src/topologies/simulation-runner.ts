import { type ChildProcess, fork } from 'node:child_process'
import { childCommand } from '../child/child-command.ts'
import { ApiError } from '../http/api-error.ts'
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

interface Pending {
  id: number
  job: SimulationJob
  resolve(result: unknown): void
  reject(err: Error): void
}

/**
 * A long-lived simulation process, started on first use and reused (starting it costs ≈ 1–3 s).
 * Jobs run one at a time in arrival order; one that exceeds `timeoutMs` kills the process (the
 * next job starts a fresh one), so no request can hold the server or the process for long.
 */
export function createSimulationRunner(options: SimulationRunnerOptions): SimulationRunner {
  const { entry, execArgv } = childCommand(import.meta.url, './simulation-child', {
    maxHeapMb: options.maxHeapMb ?? SIMULATION_DEFAULTS.maxHeapMb,
  })
  let child: ChildProcess | undefined
  let running: (Pending & { timer: NodeJS.Timeout; child: ChildProcess }) | undefined
  const queue: Pending[] = []
  let nextId = 1
  let closed = false

  function settle(reply: SimulationReply): void {
    if (!running || reply.id !== running.id) return
    const job = running
    running = undefined
    clearTimeout(job.timer)
    if (reply.ok) job.resolve(reply.result)
    else job.reject(new ApiError(reply.status, reply.code, reply.message))
    pump()
  }

  function spawnChild(): ChildProcess {
    const c = fork(entry, [], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    c.on('message', (m) => settle(m as SimulationReply))
    c.on('exit', (code, signal) => {
      if (child === c) child = undefined
      // Only a crash of the process running the job fails it (a killed one's exit comes later).
      if (running?.child !== c) return
      const job = running
      running = undefined
      clearTimeout(job.timer)
      job.reject(
        new ApiError(
          500,
          'SIM_CRASHED',
          `the simulation process exited (${signal ?? `code ${code}`}); the what-if may be too large for its memory`,
        ),
      )
      pump()
    })
    return c
  }

  function pump(): void {
    if (running || closed) return
    const next = queue.shift()
    if (!next) return
    child ??= spawnChild()
    const c = child
    const timer = setTimeout(() => {
      if (running?.id !== next.id) return
      running = undefined
      if (child === c) child = undefined
      c.kill('SIGKILL')
      next.reject(
        new ApiError(
          422,
          'SIM_TIMEOUT',
          `the simulation took longer than ${options.timeoutMs / 1000} s and was stopped: use fewer nodes, fewer bytes or a larger chunkBytes`,
        ),
      )
      pump()
    }, options.timeoutMs)
    running = { ...next, timer, child: c }
    c.send({ id: next.id, job: next.job })
  }

  return {
    run(job) {
      if (closed) return Promise.reject(new ApiError(503, 'SIM_CLOSED', 'the server is shutting down'))
      if (queue.length >= options.maxQueued)
        return Promise.reject(
          new ApiError(503, 'SIM_BUSY', `${queue.length} simulations are waiting already; retry in a moment`),
        )
      return new Promise((resolve, reject) => {
        queue.push({ id: nextId++, job, resolve, reject })
        pump()
      })
    },

    async close() {
      closed = true
      for (const p of queue.splice(0))
        p.reject(new ApiError(503, 'SIM_CLOSED', 'the server is shutting down'))
      if (running) {
        clearTimeout(running.timer)
        running.reject(new ApiError(503, 'SIM_CLOSED', 'the server is shutting down'))
        running = undefined
      }
      const c = child
      child = undefined
      if (!c || c.exitCode !== null || c.signalCode !== null) return
      const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()))
      c.kill('SIGKILL')
      await exited
    },

    pid: () => child?.pid,
  }
}
