/**
 * Entry of the image-set check child (see image-set-check-process.ts): checks one uploaded grid
 * image or zip with `checkImageSet`, sends the summary and exits. Decoding happens here, so a
 * hostile image costs this process its memory, never the server.
 */
import { sendToParent, serveChildJob } from '../child/child-job-entry.ts'
import { checkImageSet, type ImageSetCheckJob } from './image-set-check.ts'
import type { ImageSetCheckMessage } from './image-set-check-process.ts'

serveChildJob<ImageSetCheckJob>(
  async (job) => {
    const summary = await checkImageSet(job)
    await sendToParent({ type: 'summary', summary } satisfies ImageSetCheckMessage)
  },
  { failureCode: 'IMAGE_SET_CHECK_FAILED' },
)
