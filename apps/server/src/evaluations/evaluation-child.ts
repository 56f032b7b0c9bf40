/**
 * Entry of the evaluation child process (see evaluation-process.ts): receives one job over IPC,
 * reads the given vocabularies' centroids files, runs the runtime's `evaluateVocabularies` on its
 * own worker pool (only when k's are learned), reports progress and each vocabulary's
 * result, and exits. On `cancel` or when the server goes away it closes the pool (its worker
 * processes exit) and exits at once.
 */
import { spawnLocalWorker, WorkerPool } from '@codebook/runtime/collectives'
import { evaluateVocabularies, readVocabularyFile } from '@codebook/runtime/evaluation'
import { sendToParent, serveChildJob } from '../child/child-job-entry.ts'
import type { EvaluationJob, EvaluationMessage } from './evaluation-process.ts'

let pool: WorkerPool | undefined

const send = (m: EvaluationMessage) => sendToParent(m)

serveChildJob<EvaluationJob>(
  async (job) => {
    const vocabularies = await Promise.all(job.vocabularies.map((v) => readVocabularyFile(v.file, v.id)))
    // Only learned vocabularies need K-means workers.
    pool = job.ks.length > 0 ? await WorkerPool.start({ workers: 1, spawn: spawnLocalWorker }) : undefined
    try {
      await evaluateVocabularies({
        source: job.source,
        ks: job.ks,
        vocabularies,
        hog: job.hog,
        trainFraction: job.trainFraction,
        seed: job.seed,
        ...(pool ? { pool } : {}),
        onProgress: (progress) => void send({ type: 'progress', progress }),
        onResult: (result) => void send({ type: 'result', result }),
      })
    } finally {
      // Closed before `done` is sent, so no worker outlives the answer.
      await pool?.close().catch(() => undefined)
      pool = undefined
    }
  },
  { failureCode: 'EVALUATION_FAILED', onStop: async () => pool?.close() },
)
