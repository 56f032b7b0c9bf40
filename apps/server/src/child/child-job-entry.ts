/**
 * The child side of `startChildJob`: receives one job over IPC, runs it, reports `done` or a coded
 * `error`, and exits. On `cancel`, or when the server goes away (IPC closed), it runs `onStop`
 * and exits at once.
 */
import { CodebookError } from '@codebook/runtime/errors'
import type { ChildJobEnd, ToChildJob } from './child-job.ts'

/** Sends one message to the parent; resolves once it is written (or at once when the parent is gone). */
export function sendToParent(message: object): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve()
    process.send!(message, undefined, {}, () => resolve())
  })
}

/** Options of {@link serveChildJob}. */
export interface ServeChildJobOptions {
  /** Code for a failure that is not a `CodebookError`. */
  failureCode: string
  /** Closes what the job holds (worker processes, …) before the child exits on cancel or disconnect. */
  onStop?: () => Promise<void>
}

/** Runs `run` on the job the parent sends; call once at the top of a child entry module. */
export function serveChildJob<Job>(run: (job: Job) => Promise<void>, options: ServeChildJobOptions): void {
  let stopping = false
  const stop = async (): Promise<never> => {
    stopping = true
    await options.onStop?.().catch(() => undefined)
    process.exit(0)
  }
  process.on('disconnect', () => void stop())
  process.on('message', (m: ToChildJob<Job>) => {
    if (m.type === 'cancel') void stop()
    else if (m.type === 'start') void execute(m.job)
  })

  async function execute(job: Job): Promise<void> {
    let end: ChildJobEnd
    try {
      await run(job)
      end = { type: 'done' }
    } catch (err) {
      if (stopping) return
      end = {
        type: 'error',
        code: err instanceof CodebookError ? err.code : options.failureCode,
        message: err instanceof Error ? err.message : String(err),
      }
    }
    await sendToParent(end)
    await stop()
  }
}
