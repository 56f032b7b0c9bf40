import type { FinalJobStatus, ListPageQuery, Run, RunLaunch, RunParams } from '@codebook/shared'
import { desc, eq, gt } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { type ListPage, readPage } from '../db/list-page.ts'
import { runs, vocabularies } from '../db/schema.ts'
import { type JobEnding, jobTransitions } from '../jobs/job-table.ts'

type RunRow = typeof runs.$inferSelect

function toRun(row: RunRow): Run {
  return {
    id: row.id,
    datasetId: row.datasetId,
    status: row.status,
    params: row.params,
    iteration: row.iteration,
    inertia: row.inertia,
    vocabularyId: row.vocabularyId,
    checkpointIteration: row.checkpointIteration,
    launch: row.launch,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  }
}

/** Ended statuses from which a run with a checkpoint can be resumed. */
export const RESUMABLE_STATUSES: readonly FinalJobStatus[] = ['interrupted', 'cancelled', 'failed']

/** A vocabulary record (the centroids file of a succeeded run). */
export interface StoredVocabulary {
  id: string
  runId: string
  k: number
  d: number
  path: string
  createdAt: string
}

/**
 * Run persistence over drizzle (portable SQL only: PGlite and PostgreSQL); the lifecycle's writes are
 * the job table's ({@link jobTransitions}), guarded by the current status.
 */
export interface RunRepo {
  insert(id: string, params: RunParams): Promise<Run>
  get(id: string): Promise<Run | undefined>
  /** One page, newest first (400 `INVALID_CURSOR` for an unknown `before`). */
  list(page: ListPageQuery): Promise<ListPage<Run>>
  /** Ids of queued runs, oldest first (the queue order after a restart). */
  queuedIds(): Promise<string[]>
  /** queued → running; undefined when the run is no longer queued (e.g. cancelled meanwhile). */
  markRunning(id: string): Promise<Run | undefined>
  /** Progress of a running run: iterations done, last inertia, iteration the checkpoint holds. */
  setIteration(id: string, iteration: number, inertia: number, checkpointIteration: number): Promise<void>
  /** How a running run's workers were started and where they are; undefined when the run is not running. */
  setLaunch(id: string, launch: RunLaunch): Promise<Run | undefined>
  /** The vocabulary a running run has saved (its final state follows). */
  setVocabulary(id: string, vocabularyId: string): Promise<void>
  /** Final state, only from queued or running; undefined when the run had already ended. */
  finish(id: string, ending: JobEnding): Promise<Run | undefined>
  /**
   * Resumable status (see {@link RESUMABLE_STATUSES}) with a checkpoint → queued (error and finish time
   * cleared); undefined when the run is not in such a state.
   */
  requeue(id: string): Promise<Run | undefined>
  /** Marks every `running` run `interrupted` (server start after a crash or stop); returns them. */
  interruptRunning(): Promise<Run[]>
  insertVocabulary(v: Omit<StoredVocabulary, 'createdAt'>): Promise<StoredVocabulary>
  getVocabulary(id: string): Promise<StoredVocabulary | undefined>
}

/** Creates the {@link RunRepo} over a database. */
export function createRunRepo(db: Database): RunRepo {
  const job = jobTransitions<RunRow>(db, runs, 'run')
  const toRunOrUndefined = (row: RunRow | undefined) => (row === undefined ? undefined : toRun(row))
  return {
    async insert(id, params) {
      const [row] = await db
        .insert(runs)
        .values({ id, datasetId: params.datasetId, status: 'queued', params })
        .returning()
      return toRun(row!)
    },
    async get(id) {
      const [row] = await db.select().from(runs).where(eq(runs.id, id))
      return toRunOrUndefined(row)
    },
    async list(page) {
      const listed = await readPage(
        db,
        { table: runs, order: runs.createdAt, id: runs.id },
        page,
        (where, limit) =>
          db.select().from(runs).where(where).orderBy(desc(runs.createdAt), desc(runs.id)).limit(limit),
      )
      return { ...listed, items: listed.items.map(toRun) }
    },
    queuedIds: job.queuedIds,
    markRunning: async (id) => toRunOrUndefined(await job.markRunning(id)),
    async setIteration(id, iteration, inertia, checkpointIteration) {
      await job.whileRunning(id, { iteration, inertia, checkpointIteration })
    },
    setLaunch: async (id, launch) => toRunOrUndefined(await job.whileRunning(id, { launch })),
    async setVocabulary(id, vocabularyId) {
      await job.whileRunning(id, { vocabularyId })
    },
    finish: async (id, ending) => toRunOrUndefined(await job.finish(id, ending)),
    requeue: async (id) =>
      toRunOrUndefined(await job.requeue(id, RESUMABLE_STATUSES, gt(runs.checkpointIteration, 0))),
    interruptRunning: async () => (await job.interruptRunning()).map(toRun),
    async insertVocabulary(v) {
      const [row] = await db.insert(vocabularies).values(v).returning()
      return { ...row!, createdAt: row!.createdAt.toISOString() }
    },
    async getVocabulary(id) {
      const [row] = await db.select().from(vocabularies).where(eq(vocabularies.id, id))
      return row === undefined ? undefined : { ...row, createdAt: row.createdAt.toISOString() }
    },
  }
}
