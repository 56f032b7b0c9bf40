/**
 * Entry of the evaluation child process (see evaluation-process.ts): receives one job over IPC,
 * runs the runtime's `evaluateVocabularies` on its own worker pool, reports progress and each k's
 * result, and exits. On `cancel` or when the server goes away it closes the pool (its worker
 * processes exit) and exits at once.
 */
import { CodebookError, evaluateVocabularies, spawnLocalWorker, WorkerPool } from '@codebook/runtime'
import type { FromChild, ToChild } from './evaluation-process.ts'

let pool: WorkerPool | undefined
let stopping = false

function send(m: FromChild): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve()
    process.send!(m, undefined, {}, () => resolve())
  })
}

async function stop(code: number): Promise<never> {
  stopping = true
  await pool?.close().catch(() => undefined)
  process.exit(code)
}

process.on('disconnect', () => void stop(0))
process.on('message', (m: ToChild) => {
  if (m.type === 'cancel') void stop(0)
  else if (m.type === 'start') void run(m.job)
})

async function run(job: Extract<ToChild, { type: 'start' }>['job']): Promise<void> {
  try {
    pool = await WorkerPool.start({ workers: 1, spawn: spawnLocalWorker })
    await evaluateVocabularies({
      source: job.source,
      ks: job.ks,
      hog: job.hog,
      trainFraction: job.trainFraction,
      seed: job.seed,
      pool,
      onProgress: (progress) => void send({ type: 'progress', progress }),
      onResult: (result) => void send({ type: 'result', result }),
    })
    await send({ type: 'done' })
  } catch (err) {
    if (stopping) return
    await send({
      type: 'error',
      code: err instanceof CodebookError ? err.code : 'EVALUATION_FAILED',
      message: err instanceof Error ? err.message : String(err),
    })
  }
  await stop(0)
}
