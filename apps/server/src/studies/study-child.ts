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

serveChildJob<StudyJob>(
  async (job) => {
    let last = 0
    playStudy(job, {
      result: (rows) => void send({ type: 'result', rows }),
      progress(done, total, unit) {
        const now = performance.now()
        if (done < total && now - last < PROGRESS_INTERVAL_MS) return
        last = now
        void send({ type: 'progress', fraction: done / total, message: `${done} of ${total} ${unit}` })
      },
    })
  },
  { failureCode: 'STUDY_FAILED' },
)
