import type {
  FinalJobStatus,
  IterationRow,
  Run,
  RunLaunch,
  RunListQuery,
  RunParams,
  UpdateRun,
} from '@codebook/shared'
import { and, desc, eq, gt, gte, lt, type SQL, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { type ListPage, readPage } from '../db/list-page.ts'
import { datasets, jobEvents, runs, type VocabularyOrigin, vocabularies } from '../db/schema.ts'
import { type JobEnding, jobTransitions } from '../jobs/job-table.ts'
import { readIterations } from './run-iterations.ts'

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
    name: row.name,
    notes: row.notes,
    tags: row.tags,
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
  /** Set once its run was deleted and it was kept. */
  origin: VocabularyOrigin | null
  createdAt: string
}

/** A `LIKE` pattern matching `text` anywhere (its `%`, `_` and `\\` taken literally). */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** The conditions of a list's filters (AND); undefined when none is given. */
function listFilters(query: RunListQuery): SQL | undefined {
  const conditions: SQL[] = []
  if (query.tag !== undefined) conditions.push(sql`${runs.tags} @> ${JSON.stringify([query.tag])}::jsonb`)
  if (query.datasetId !== undefined) conditions.push(eq(runs.datasetId, query.datasetId))
  if (query.status !== undefined) conditions.push(eq(runs.status, query.status))
  if (query.k !== undefined) conditions.push(sql`(${runs.params}->>'k')::bigint = ${query.k}`)
  if (query.createdAfter !== undefined) conditions.push(gte(runs.createdAt, new Date(query.createdAfter)))
  if (query.createdBefore !== undefined) conditions.push(lt(runs.createdAt, new Date(query.createdBefore)))
  if (query.q !== undefined) {
    const like = containing(query.q)
    conditions.push(
      sql`(${runs.id} ilike ${like} or ${runs.name} ilike ${like} or ${runs.notes} ilike ${like} or ${runs.tags}::text ilike ${like} or exists (select 1 from ${datasets} where ${datasets.id} = ${runs.datasetId} and ${datasets.name} ilike ${like}))`,
    )
  }
  return conditions.length === 0 ? undefined : and(...conditions)
}

/**
 * Run persistence over drizzle (portable SQL only: PGlite and PostgreSQL); the lifecycle's writes are
 * the job table's ({@link jobTransitions}), guarded by the current status.
 */
export interface RunRepo {
  insert(id: string, params: RunParams): Promise<Run>
  get(id: string): Promise<Run | undefined>
  /** One page of the runs matching the query's filters, newest first (400 `INVALID_CURSOR` for an unknown `before`). */
  list(query: RunListQuery): Promise<ListPage<Run>>
  /** Sets the labels given; undefined when there is no such run. */
  updateLabels(id: string, labels: UpdateRun): Promise<Run | undefined>
  /**
   * Deletes the run's record and events (one transaction); a kept vocabulary is given `origin`
   * first. False when there was no such run.
   */
  remove(id: string, keptVocabulary?: { id: string; origin: VocabularyOrigin }): Promise<boolean>
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
  /** One row per iteration (see {@link readIterations}). */
  iterations(id: string): Promise<IterationRow[]>
  insertVocabulary(v: Omit<StoredVocabulary, 'createdAt' | 'origin'>): Promise<StoredVocabulary>
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
    async list(query) {
      const filters = listFilters(query)
      const listed = await readPage(
        db,
        { table: runs, order: runs.createdAt, id: runs.id },
        query,
        (where, limit) =>
          db
            .select()
            .from(runs)
            .where(and(filters, where))
            .orderBy(desc(runs.createdAt), desc(runs.id))
            .limit(limit),
      )
      return { ...listed, items: listed.items.map(toRun) }
    },
    async updateLabels(id, labels) {
      const [row] = await db
        .update(runs)
        .set({
          ...(labels.name !== undefined ? { name: labels.name } : {}),
          ...(labels.notes !== undefined ? { notes: labels.notes } : {}),
          ...(labels.tags !== undefined ? { tags: [...new Set(labels.tags)] } : {}),
        })
        .where(eq(runs.id, id))
        .returning()
      return toRunOrUndefined(row)
    },
    async remove(id, kept) {
      return db.transaction(async (tx) => {
        if (kept !== undefined)
          await tx.update(vocabularies).set({ origin: kept.origin }).where(eq(vocabularies.id, kept.id))
        const removed = await tx.delete(runs).where(eq(runs.id, id)).returning({ id: runs.id })
        await tx.delete(jobEvents).where(and(eq(jobEvents.kind, 'run'), eq(jobEvents.jobId, id)))
        return removed.length > 0
      })
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
    iterations: (id) => readIterations(db, id),
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
