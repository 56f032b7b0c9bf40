/**
 * Entry of the study child process (see study-process.ts): receives one study over IPC, plays
 * it with the runtime's discrete-event players, sends each cell's rows and throttled progress,
 * and exits. Cancel kills it (the simulation never yields to read a message).
 */
import { sendToParent, serveChildJob } from '../child/child-job-entry.ts'
import { playStudy } from './study-plan.ts'
import type { StudyJob, StudyMessage } from './study-process.ts'

/** Least time between two progress messages. */
const PROGRESS_INTERVAL_MS = 100

const send = (m: StudyMessage) => sendToParent(m)

/**
 * The simulation never yields, so the `disconnect` of a server that died is not seen until it
 * ends (hours for the largest studies). `process.ppid` is read afresh on each access: a changed
 * parent means the server is gone, and the child exits instead of burning a core as an orphan.
 */
const parent = process.ppid
function exitIfOrphaned(): void {
  if (process.ppid !== parent) process.exit(1)
}

serveChildJob<StudyJob>(
  async (job) => {
    let last = 0
    playStudy(job, {
      result: (rows) => void send({ type: 'result', rows }),
      progress(done, total, unit) {
        exitIfOrphaned()
        const now = performance.now()
        if (done < total && now - last < PROGRESS_INTERVAL_MS) return
        last = now
        void send({
          type: 'progress',
          fraction: done / total,
          message: `${done.toLocaleString('en')} of ${total.toLocaleString('en')} ${unit}`,
        })
      },
    })
  },
  { failureCode: 'STUDY_FAILED' },
)
