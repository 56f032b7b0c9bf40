import { childCommand } from '../child/child-command.ts'
import { type ChildJob, ChildJobError, startChildJob } from '../child/child-job.ts'
import type { ImageSetCheckJob, ImageSetSummary } from './image-set-check.ts'

/** Child → parent, besides `done` / `error`. */
export type ImageSetCheckMessage = { type: 'summary'; summary: ImageSetSummary }

/** Heap of the check child, MB: it holds one image's bytes at a time (decoded by sharp outside the heap). */
const CHECK_HEAP_MB = 512

/**
 * Checks an uploaded image set in a child process (`image-set-check-child.ts`) and resolves with
 * its summary; rejects with a {@link ChildJobError} carrying the check's code, or
 * `IMAGE_SET_CHECK_CRASHED` when the child dies.
 */
export async function checkImageSetInChild(
  job: ImageSetCheckJob,
  signal?: AbortSignal,
): Promise<ImageSetSummary> {
  let summary: ImageSetSummary | undefined
  const proc: ChildJob = startChildJob<ImageSetCheckJob, ImageSetCheckMessage>(
    childCommand(import.meta.url, './image-set-check-child', { maxHeapMb: CHECK_HEAP_MB }),
    job,
    {
      onMessage: (m) => {
        summary = m.summary
      },
      crashed: (exit) =>
        new ChildJobError('IMAGE_SET_CHECK_CRASHED', `the image check process exited early (${exit})`),
    },
  )
  // The check writes nothing of its own: a stopped one is killed at once.
  const kill = () => void proc.stop(0)
  signal?.addEventListener('abort', kill, { once: true })
  try {
    await proc.done
  } finally {
    signal?.removeEventListener('abort', kill)
  }
  if (summary === undefined)
    throw new ChildJobError('IMAGE_SET_CHECK_CRASHED', 'the image check process ended without a summary')
  return summary
}
