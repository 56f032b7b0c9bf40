/**
 * Entry of the simulation process (forked by simulation-runner.ts): runs one what-if at a time,
 * so a long flow simulation never blocks the server's event loop and can be killed at its limit.
 */
import { CodebookError } from '@codebook/runtime/errors'
import { statusOf } from '../http/api-error.ts'
import { simulateBroadcasts, simulateKmeans } from './simulate-core.ts'
import type { SimulationJob, SimulationReply } from './simulation-job.ts'

function run(job: SimulationJob): unknown {
  if (job.kind === 'broadcast') return { results: simulateBroadcasts(job.topology, job.request) }
  return simulateKmeans(job.topology, job.whatIf)
}

process.on('message', (msg: { id: number; job: SimulationJob }) => {
  let reply: SimulationReply
  try {
    reply = { id: msg.id, ok: true, result: run(msg.job) }
  } catch (err) {
    reply =
      err instanceof CodebookError
        ? { id: msg.id, ok: false, status: statusOf(err), code: err.code, message: err.message }
        : { id: msg.id, ok: false, status: 500, code: 'SIM_FAILED', message: String(err) }
  }
  process.send?.(reply)
})

// The server went away (closed or crashed): nothing left to answer.
process.on('disconnect', () => process.exit(0))
