/**
 * Entry of a run's driver process (see run-driver-process.ts): receives one {@link TrainingJob}
 * over IPC, starts the run's worker pool and trains it (`trainRun`), sending every log line,
 * progress, launch change and iteration report to the server, which stores them in order and
 * answers each iteration with `recorded`. On `cancel`, or when the server goes away, it closes
 * the pool (its workers exit) and exits.
 */
import { spawnLocalWorker } from '@codebook/runtime/collectives'
import { sendToParent, serveChildJob } from '../child/child-job-entry.ts'
import type { RunDriverMessage, ToRunDriver } from './run-driver-process.ts'
import type { RunReporter } from './run-reporter.ts'
import { type TrainingJob, trainRun } from './run-training.ts'
import { trackWorkers } from './run-workers.ts'

const send = (m: RunDriverMessage) => sendToParent(m)
const stop = new AbortController()
/** Iterations sent to the server and not yet stored, by number. */
const unrecorded = new Map<number, () => void>()
process.on('message', (m: ToRunDriver | { type: string }) => {
  if (m.type !== 'recorded') return
  const { iteration } = m as ToRunDriver
  unrecorded.get(iteration)?.()
  unrecorded.delete(iteration)
})

const workers = trackWorkers(spawnLocalWorker, stop.signal, (pids) => void send({ type: 'workers', pids }))
const report: RunReporter = {
  say: (level, message) => send({ type: 'say', level, message }),
  progressed: (data) => send({ type: 'progress', data }),
  launched: (launch) => send({ type: 'launch', launch }),
  iteration: (r) =>
    new Promise<void>((resolve) => {
      unrecorded.set(r.iteration, resolve)
      void send({ type: 'iteration', report: r })
    }),
}
let training: Promise<unknown> = Promise.resolve()

serveChildJob<TrainingJob>(
  async (job) => {
    const run = trainRun(job, { report, signal: stop.signal, spawn: workers.spawn })
    training = run.catch(() => undefined)
    const trained = await run
    await send({ type: 'trained', trained })
  },
  {
    failureCode: 'RUN_FAILED',
    async onStop() {
      stop.abort()
      // trainRun closes its pool on abort (workers get 3 s to shut down); anything left is killed.
      await Promise.race([training, new Promise((r) => setTimeout(r, 4000))])
      await workers.killAll()
    },
  },
)
