import type { IterationReport, RunLaunch, RunLogData, RunProgressData } from '@codebook/shared'
import { childCommand } from '../child/child-command.ts'
import { type ChildJob, ChildJobError, startChildJob } from '../child/child-job.ts'
import type { TrainedRun, TrainingJob } from './run-training.ts'

/** Driver process → server, besides `done` / `error`: what a {@link RunReporter} says, and the result. */
export type RunDriverMessage =
  | { type: 'say'; level: RunLogData['level']; message: string }
  | { type: 'progress'; data: RunProgressData }
  | { type: 'launch'; launch: RunLaunch }
  | { type: 'iteration'; report: IterationReport }
  | { type: 'workers'; pids: number[] }
  | { type: 'trained'; trained: TrainedRun }

/** Server → driver process: iteration `iteration` is stored (its checkpoint is now the resume point). */
export type ToRunDriver = { type: 'recorded'; iteration: number }

/** A running driver process. */
export interface RunDriverProcess {
  child: ChildJob['child']
  /** Resolves with the trained run once the process has exited and every message is handled. */
  done: Promise<TrainedRun>
  /** Asks the driver to stop (it closes its pool); SIGKILL after `graceMs`. */
  cancel(graceMs?: number): Promise<void>
  /** PIDs of the run's local worker processes alive now, as the driver last reported them. */
  workerPids(): number[]
}

/**
 * Runs a run's driver in a child process (`run-driver-child.ts`): its worker pool, the SPMD
 * iterations and every wait on them live there, never on the server's event loop. `handle` is
 * called with each message, one at a time in order (so the run's events keep their order); an
 * `iteration` is answered with `recorded` once `handle` has stored it. A driver that exits
 * without an answer fails the run with `RUN_DRIVER_CRASHED`.
 */
export function runDriverProcess(
  job: TrainingJob,
  handle: (m: Exclude<RunDriverMessage, { type: 'trained' | 'workers' }>) => Promise<void>,
): RunDriverProcess {
  let chain: Promise<void> = Promise.resolve()
  let trained: TrainedRun | undefined
  let pids: number[] = []
  const proc = startChildJob<TrainingJob, RunDriverMessage>(
    childCommand(import.meta.url, './run-driver-child'),
    job,
    {
      onMessage(m) {
        if (m.type === 'workers') pids = m.pids
        else if (m.type === 'trained') trained = m.trained
        else
          chain = chain.then(async () => {
            // `handle` logs its own failures; the driver is answered either way, so it never waits forever.
            await handle(m).catch(() => undefined)
            if (m.type === 'iteration' && proc.child.connected)
              proc.child.send(
                { type: 'recorded', iteration: m.report.iteration } satisfies ToRunDriver,
                (err) => void err,
              )
          })
      },
      crashed: (exit) =>
        new ChildJobError('RUN_DRIVER_CRASHED', `the run's driver process exited early (${exit})`),
    },
  )
  const done = proc.done.then(
    async () => {
      await chain
      if (trained === undefined)
        throw new ChildJobError('RUN_DRIVER_CRASHED', "the run's driver process ended without a result")
      return trained
    },
    async (err: unknown) => {
      await chain
      throw err
    },
  )
  return {
    child: proc.child,
    done,
    cancel: (graceMs) => proc.stop(graceMs ?? 8000),
    workerPids: () => pids,
  }
}
