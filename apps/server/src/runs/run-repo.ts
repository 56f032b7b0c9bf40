import type { Run, RunEvent, RunEventType, RunLaunch, RunParams, RunStatus } from '@codebook/shared'
import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { runEvents, runs, vocabularies } from '../db/schema.ts'

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

/** Statuses after which a run never changes again. */
export const FINAL_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled', 'interrupted']

/** Ended statuses from which a run with a checkpoint can be resumed. */
export const RESUMABLE_STATUSES: readonly RunStatus[] = ['interrupted', 'cancelled', 'failed']

/** A vocabulary record (the centroids file of a succeeded run). */
export interface StoredVocabulary {
  id: string
  runId: string
  k: number
  d: number
  path: string
  createdAt: string
}

/** How a run ended. */
export interface RunEnding {
  status: Extract<RunStatus, 'succeeded' | 'failed' | 'cancelled' | 'interrupted'>
  error?: { code: string; message: string }
  vocabularyId?: string
}

/**
 * Run persistence over drizzle (portable SQL only: PGlite and PostgreSQL). State transitions are
 * guarded by the current status in the WHERE clause, so a late write cannot undo a final state.
 */
export interface RunRepo {
  insert(id: string, params: RunParams): Promise<Run>
  get(id: string): Promise<Run | undefined>
  /** Newest first. */
  list(): Promise<Run[]>
  /** Queued runs, oldest first (the queue order after a restart). */
  listQueued(): Promise<Run[]>
  /** queued → running; undefined when the run is no longer queued (e.g. cancelled meanwhile). */
  markRunning(id: string): Promise<Run | undefined>
  /** Progress of a running run: iterations done, last inertia, iteration the checkpoint holds (if written). */
  setIteration(id: string, iteration: number, inertia: number, checkpointIteration?: number): Promise<void>
  /** How a running run's workers were started and where they are; undefined when the run is not running. */
  setLaunch(id: string, launch: RunLaunch): Promise<Run | undefined>
  /** Final state, only from queued or running; undefined when the run had already ended. */
  finish(id: string, ending: RunEnding): Promise<Run | undefined>
  /**
   * Resumable status (see {@link RESUMABLE_STATUSES}) with a checkpoint → queued (error and finish time
   * cleared); undefined when the run is not in such a state.
   */
  requeue(id: string): Promise<Run | undefined>
  /** Marks every `running` run `interrupted` (server start after a crash or stop); returns them. */
  interruptRunning(): Promise<Run[]>
  /**
   * Appends an event with the next seq of its run (max + 1, inside one statement; the unique
   * (run_id, seq) constraint rejects a duplicate). Callers serialize appends per run.
   */
  appendEvent(runId: string, type: RunEventType, data: unknown): Promise<RunEvent>
  /** Events with seq > after, in seq order. */
  /** Events with seq > after in order; at most `limit` when given. */
  eventsAfter(runId: string, after: number, limit?: number): Promise<RunEvent[]>
  insertVocabulary(v: Omit<StoredVocabulary, 'createdAt'>): Promise<StoredVocabulary>
  getVocabulary(id: string): Promise<StoredVocabulary | undefined>
}

/** Creates the {@link RunRepo} over a database. */
export function createRunRepo(db: Database): RunRepo {
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
      return row === undefined ? undefined : toRun(row)
    },
    async list() {
      const rows = await db.select().from(runs).orderBy(desc(runs.createdAt), desc(runs.id))
      return rows.map(toRun)
    },
    async listQueued() {
      const rows = await db
        .select()
        .from(runs)
        .where(eq(runs.status, 'queued'))
        .orderBy(asc(runs.createdAt), asc(runs.id))
      return rows.map(toRun)
    },
    async markRunning(id) {
      const [row] = await db
        .update(runs)
        .set({ status: 'running', startedAt: sql`now()` })
        .where(and(eq(runs.id, id), eq(runs.status, 'queued')))
        .returning()
      return row === undefined ? undefined : toRun(row)
    },
    async setIteration(id, iteration, inertia, checkpointIteration) {
      await db
        .update(runs)
        .set({ iteration, inertia, ...(checkpointIteration === undefined ? {} : { checkpointIteration }) })
        .where(and(eq(runs.id, id), eq(runs.status, 'running')))
    },
    async setLaunch(id, launch) {
      const [row] = await db
        .update(runs)
        .set({ launch })
        .where(and(eq(runs.id, id), eq(runs.status, 'running')))
        .returning()
      return row === undefined ? undefined : toRun(row)
    },
    async finish(id, ending) {
      const [row] = await db
        .update(runs)
        .set({
          status: ending.status,
          error: ending.error ?? null,
          vocabularyId: ending.vocabularyId ?? null,
          finishedAt: sql`now()`,
        })
        .where(and(eq(runs.id, id), inArray(runs.status, ['queued', 'running'])))
        .returning()
      return row === undefined ? undefined : toRun(row)
    },
    async requeue(id) {
      const [row] = await db
        .update(runs)
        .set({ status: 'queued', error: null, finishedAt: null })
        .where(
          and(
            eq(runs.id, id),
            inArray(runs.status, [...RESUMABLE_STATUSES]),
            gt(runs.checkpointIteration, 0),
          ),
        )
        .returning()
      return row === undefined ? undefined : toRun(row)
    },
    async interruptRunning() {
      const rows = await db
        .update(runs)
        .set({
          status: 'interrupted',
          error: { code: 'INTERRUPTED', message: 'the server stopped while the run was running' },
          finishedAt: sql`now()`,
        })
        .where(eq(runs.status, 'running'))
        .returning()
      return rows.map(toRun)
    },
    async appendEvent(runId, type, data) {
      const next = sql`(select coalesce(max(${runEvents.seq}), 0) + 1 from ${runEvents} where ${runEvents.runId} = ${runId})`
      const [row] = await db
        .insert(runEvents)
        .values({ runId, seq: next, type, data })
        .returning({ seq: runEvents.seq, type: runEvents.type, data: runEvents.data })
      return row!
    },
    async eventsAfter(runId, after, limit) {
      const query = db
        .select({ seq: runEvents.seq, type: runEvents.type, data: runEvents.data })
        .from(runEvents)
        .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, after)))
        .orderBy(asc(runEvents.seq))
      return limit === undefined ? query : query.limit(limit)
    },
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
