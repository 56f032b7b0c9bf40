import type { Study, StudyParams, StudyResults } from '@codebook/shared'
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { studies } from '../db/schema.ts'
import type { StoredJobEnding } from '../jobs/stored-child-jobs.ts'

type Row = typeof studies.$inferSelect

function toStudy(row: Row): Study {
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
  } as Study
}

/**
 * Study persistence over drizzle (portable SQL: PGlite and PostgreSQL). Writes during a study
 * are guarded by `status = 'running'`, so a late write cannot touch an ended study.
 */
export interface StudyRepo {
  insert(id: string, name: string, kind: Study['kind'], params: StudyParams): Promise<Study>
  get(id: string): Promise<Study | undefined>
  /** Newest first. */
  list(): Promise<Study[]>
  /** Ids of queued studies, oldest first. */
  listQueued(): Promise<string[]>
  /** queued → running; undefined when no longer queued. */
  markRunning(id: string): Promise<Study | undefined>
  setProgress(id: string, progress: number): Promise<void>
  /** Appends one cell's rows to `results` (one statement: `results || rows`). */
  appendResults(id: string, rows: StudyResults): Promise<void>
  /** Final state, only from queued or running; undefined when it had already ended. */
  finish(id: string, ending: StoredJobEnding): Promise<Study | undefined>
  /** `running` → `interrupted` (server start after a stop or crash); returns them. */
  interruptRunning(): Promise<Study[]>
  /** Deletes a study; false when there was none. */
  remove(id: string): Promise<boolean>
}

/** Creates the {@link StudyRepo}. */
export function createStudyRepo(db: Database): StudyRepo {
  const whileRunning = (id: string) => and(eq(studies.id, id), eq(studies.status, 'running'))
  return {
    async insert(id, name, kind, params) {
      const [row] = await db.insert(studies).values({ id, name, kind, status: 'queued', params }).returning()
      return toStudy(row!)
    },
    async get(id) {
      const [row] = await db.select().from(studies).where(eq(studies.id, id))
      return row === undefined ? undefined : toStudy(row)
    },
    async list() {
      const rows = await db.select().from(studies).orderBy(desc(studies.createdAt), desc(studies.id))
      return rows.map(toStudy)
    },
    async listQueued() {
      const rows = await db
        .select({ id: studies.id })
        .from(studies)
        .where(eq(studies.status, 'queued'))
        .orderBy(asc(studies.createdAt), asc(studies.id))
      return rows.map((r) => r.id)
    },
    async markRunning(id) {
      const [row] = await db
        .update(studies)
        .set({ status: 'running', startedAt: sql`now()` })
        .where(and(eq(studies.id, id), eq(studies.status, 'queued')))
        .returning()
      return row === undefined ? undefined : toStudy(row)
    },
    async setProgress(id, progress) {
      await db.update(studies).set({ progress }).where(whileRunning(id))
    },
    async appendResults(id, rows) {
      await db
        .update(studies)
        .set({ results: sql`${studies.results} || ${JSON.stringify(rows)}::jsonb` })
        .where(whileRunning(id))
    },
    async finish(id, ending) {
      const [row] = await db
        .update(studies)
        .set({
          status: ending.status,
          error: ending.error ?? null,
          ...(ending.status === 'succeeded' ? { progress: 1 } : {}),
          finishedAt: sql`now()`,
        })
        .where(and(eq(studies.id, id), inArray(studies.status, ['queued', 'running'])))
        .returning()
      return row === undefined ? undefined : toStudy(row)
    },
    async interruptRunning() {
      const rows = await db
        .update(studies)
        .set({
          status: 'interrupted',
          error: { code: 'INTERRUPTED', message: 'the server stopped while the study was running' },
          finishedAt: sql`now()`,
        })
        .where(eq(studies.status, 'running'))
        .returning()
      return rows.map(toStudy)
    },
    async remove(id) {
      const rows = await db.delete(studies).where(eq(studies.id, id)).returning({ id: studies.id })
      return rows.length > 0
    },
  }
}
