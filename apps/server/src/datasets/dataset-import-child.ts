/**
 * Entry of the dataset import child (see dataset-import-process.ts): runs the runtime's
 * `importToStore` on one upload, sends throttled progress and the stats, and exits. Killed by the
 * server on delete or shutdown; exits by itself when the server goes away.
 */
import { dirname } from 'node:path'
import { importToStore } from '@codebook/runtime/formats'
import { sendToParent, serveChildJob } from '../child/child-job-entry.ts'
import type { ImportJob, ImportMessage } from './dataset-import-process.ts'
import { diskRoom, insufficientSpace } from './disk-space.ts'

const send = (m: ImportMessage) => sendToParent(m)

/** Fails the child with IMPORT_MEMORY_LIMIT once its resident memory passes `maxRssBytes`. */
function watchMemory(maxRssBytes: number): void {
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss()
    if (rss <= maxRssBytes) return
    clearInterval(timer)
    const mib = (bytes: number) => Math.round(bytes / 1024 ** 2)
    void sendToParent({
      type: 'error',
      code: 'IMPORT_MEMORY_LIMIT',
      message: `the import needed more than ${mib(maxRssBytes)} MiB of memory (${mib(rss)} MiB), likely a line that never ends; nothing was stored`,
    }).then(() => process.exit(1))
  }, 100)
  timer.unref()
}

/** INSUFFICIENT_SPACE when the data disk's free space is under the reserve now; undefined otherwise (or unreadable). */
async function diskShortfall(dir: string, reserve: number) {
  const room = await diskRoom(dir, reserve).catch(() => undefined)
  if (room === undefined || room.free >= reserve) return undefined
  return insufficientSpace(room, 'the free space fell under the reserve during the import')
}

/** Reports `err` to the server and exits: the server fails the import and removes its files. */
function failWith(err: { code: string; message: string }): Promise<never> {
  return sendToParent({ type: 'error', code: err.code, message: err.message }).then(() => process.exit(1))
}

/**
 * Fails the child with INSUFFICIENT_SPACE once the data disk's free space falls under the reserve
 * (the output can outgrow the expansion bound: `1 ` is 2 bytes of text, 4 of float32; and other
 * imports write beside it). Checked every 250 ms, and once more when the output is complete, so an
 * import faster than the period is held to the reserve too.
 */
function watchDisk(dir: string, reserve: number): void {
  let checking = false
  const timer = setInterval(async () => {
    if (checking) return
    checking = true
    const short = await diskShortfall(dir, reserve)
    checking = false
    if (short === undefined) return
    clearInterval(timer)
    void failWith(short)
  }, 250)
  timer.unref()
}

serveChildJob<ImportJob>(
  async (job) => {
    watchMemory(job.maxRssBytes)
    watchDisk(dirname(job.destDir), job.diskReserveBytes)
    let last = 0
    const stats = await importToStore(job.uploadPath, job.destDir, {
      ...job.options,
      format: job.format,
      onProgress: (progress) => {
        const now = Date.now()
        if (now - last < job.progressIntervalMs) return
        last = now
        void send({ type: 'progress', progress })
      },
    })
    const short = await diskShortfall(dirname(job.destDir), job.diskReserveBytes)
    if (short !== undefined) await failWith(short)
    await send({ type: 'ready', stats })
  },
  { failureCode: 'IMPORT_FAILED' },
)
