/**
 * Entry of the assignment child process (see assignment-runner.ts): receives one job over IPC,
 * runs {@link computeAssignments} with the ONNX Runtime kernel, answers `done` or a coded error,
 * and exits. The parent kills it to cancel; it exits too when the parent goes away.
 */
import { availableParallelism } from 'node:os'
import { CodebookError, createOrtKernel } from '@codebook/runtime'
import { type AssignmentJob, computeAssignments } from './compute-assignments.ts'

/** Parent → child. */
export type AssignmentToChild = { type: 'start'; job: AssignmentJob }
/** Child → parent. */
export type AssignmentFromChild =
  | { type: 'done'; n: number }
  | { type: 'error'; code: string; message: string }

function send(m: AssignmentFromChild): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve()
    process.send!(m, undefined, {}, () => resolve())
  })
}

async function run(job: AssignmentJob): Promise<void> {
  // Leave a core to the server and the run workers when there is more than one.
  const kernel = await createOrtKernel({ intraOpNumThreads: Math.max(1, availableParallelism() - 1) })
  try {
    const { n } = await computeAssignments(job, kernel)
    await send({ type: 'done', n })
  } catch (err) {
    await send({
      type: 'error',
      code: err instanceof CodebookError ? err.code : 'ASSIGNMENTS_FAILED',
      message: err instanceof Error ? err.message : String(err),
    })
  } finally {
    await kernel.dispose()
  }
  process.exit(0)
}

process.on('disconnect', () => process.exit(0))
process.on('message', (m: AssignmentToChild) => {
  if (m.type === 'start') void run(m.job)
})
