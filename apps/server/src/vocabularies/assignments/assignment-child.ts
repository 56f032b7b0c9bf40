/**
 * Entry of the assignment child process (see assignment-runner.ts): receives one job over IPC,
 * runs {@link computeAssignments} with the ONNX Runtime kernel, answers `done` or a coded error,
 * and exits. The parent kills it to cancel; it exits too when the parent goes away.
 */
import { availableParallelism } from 'node:os'
import { createOrtKernel } from '@codebook/runtime/kmeans'
import { serveChildJob } from '../../child/child-job-entry.ts'
import { type AssignmentJob, computeAssignments } from './compute-assignments.ts'

serveChildJob<AssignmentJob>(
  async (job) => {
    // Leave a core to the server and the run workers when there is more than one.
    const kernel = await createOrtKernel({ intraOpNumThreads: Math.max(1, availableParallelism() - 1) })
    try {
      await computeAssignments(job, kernel)
    } finally {
      await kernel.dispose()
    }
  },
  { failureCode: 'ASSIGNMENTS_FAILED' },
)
