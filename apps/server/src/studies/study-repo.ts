import type { Study, StudyParams, StudyResults } from '@codebook/shared'
import { desc, eq, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { studies } from '../db/schema.ts'
import { type JobEnding, jobTransitions, lastEventSeq } from '../jobs/job-table.ts'

type Row = typeof studies.$inferSelect

function toStudy(row: Row, eventSeq?: number): Study {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    status: row.status,
    params: row.params,
    progress: row.progress,
    results: row.results,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    ...(eventSeq === undefined ? {} : { lastEventSeq: eventSeq }),
  } as Study
}

/**
 * Study persistence over drizzle (portable SQL: PGlite and PostgreSQL). The lifecycle's writes are
 * the job table's ({@link jobTransitions}); writes during a study are guarded by `status = 'running'`,
 * so a late write cannot touch an ended study.
 */
export interface StudyRepo {
  insert(id: string, name: string, kind: Study['kind'], params: StudyParams): Promise<Study>
  get(id: string): Promise<Study | undefined>
  /** Newest first. */
  list(): Promise<Study[]>
  /** Ids of queued studies, oldest first. */
  queuedIds(): Promise<string[]>
  /** queued → running; undefined when no longer queued. */
  markRunning(id: string): Promise<Study | undefined>
  setProgress(id: string, progress: number): Promise<void>
  /** Appends one cell's rows to `results` (one statement: `results || rows`). */
  appendResults(id: string, rows: StudyResults): Promise<void>
  /** Final state, only from queued or running; undefined when it had already ended. */
  finish(id: string, ending: JobEnding): Promise<Study | undefined>
  /** `running` → `interrupted` (server start after a stop or crash); returns them. */
  interruptRunning(): Promise<Study[]>
  /** Deletes a study; false when there was none. */
  remove(id: string): Promise<boolean>
}

/** Creates the {@link StudyRepo}. */
export function createStudyRepo(db: Database): StudyRepo {
  const job = jobTransitions<Row>(db, studies, 'study')
  const studyOrUndefined = (row: Row | undefined) => (row === undefined ? undefined : toStudy(row))
  /** A row read for clients, with its feed's last seq. */
  const withSeq = { row: studies, seq: lastEventSeq('study', studies) }
  return {
    async insert(id, name, kind, params) {
      const [row] = await db.insert(studies).values({ id, name, kind, status: 'queued', params }).returning()
      return toStudy(row!)
    },
    async get(id) {
      const [read] = await db.select(withSeq).from(studies).where(eq(studies.id, id))
      return read === undefined ? undefined : toStudy(read.row, read.seq)
    },
    async list() {
      const rows = await db.select(withSeq).from(studies).orderBy(desc(studies.createdAt), desc(studies.id))
      return rows.map((r) => toStudy(r.row, r.seq))
    },
    queuedIds: job.queuedIds,
    markRunning: async (id) => studyOrUndefined(await job.markRunning(id)),
    async setProgress(id, progress) {
      await job.whileRunning(id, { progress })
    },
    async appendResults(id, rows) {
      await job.whileRunning(id, { results: sql`${studies.results} || ${JSON.stringify(rows)}::jsonb` })
    },
    finish: async (id, ending) =>
      studyOrUndefined(await job.finish(id, ending, ending.status === 'succeeded' ? { progress: 1 } : {})),
    interruptRunning: async () => (await job.interruptRunning()).map(toStudy),
    async remove(id) {
      const rows = await db.delete(studies).where(eq(studies.id, id)).returning({ id: studies.id })
      return rows.length > 0
    },
  }
}
