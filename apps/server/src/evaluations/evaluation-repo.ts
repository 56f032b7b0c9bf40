import type { Evaluation, EvaluationKResult, EvaluationParams } from '@codebook/shared'
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { evaluations } from '../db/schema.ts'
import type { StoredJobEnding } from '../jobs/stored-child-jobs.ts'

/** What the `params` column holds: the request's parameters and what the evaluation needs of its image set. */
export interface StoredEvaluationParams extends EvaluationParams {
  imageSetName: string
  classes: string[]
  /** Images per class of the whole set (maps evaluated image indices back to set indices). */
  classCounts: number[]
}

type Row = typeof evaluations.$inferSelect

/** A stored evaluation: the API record and its stored parameters. */
export interface StoredEvaluation {
  evaluation: Evaluation
  params: StoredEvaluationParams
}

function toStored(row: Row): StoredEvaluation {
  const stored = row.params as StoredEvaluationParams
  const { imageSetName, classes, classCounts: _, ...params } = stored
  return {
    evaluation: {
      id: row.id,
      name: row.name,
      status: row.status,
      params: { ...params, vocabularyIds: params.vocabularyIds ?? [] },
      imageSetName,
      classes,
      progress: row.progress,
      results: row.results as EvaluationKResult[],
      error: row.error,
      createdAt: row.createdAt.toISOString(),
      startedAt: row.startedAt?.toISOString() ?? null,
      finishedAt: row.finishedAt?.toISOString() ?? null,
    },
    params: stored,
  }
}

/**
 * Evaluation persistence over drizzle (portable SQL: PGlite and PostgreSQL). Writes during a run
 * are guarded by `status = 'running'`, so a late write cannot touch an ended evaluation.
 */
export interface EvaluationRepo {
  insert(id: string, name: string, params: StoredEvaluationParams): Promise<StoredEvaluation>
  get(id: string): Promise<StoredEvaluation | undefined>
  /** Newest first. */
  list(): Promise<Evaluation[]>
  /** Queued evaluations, oldest first. */
  listQueued(): Promise<StoredEvaluation[]>
  /** queued → running; undefined when no longer queued. */
  markRunning(id: string): Promise<StoredEvaluation | undefined>
  setProgress(id: string, progress: number): Promise<void>
  /** Appends one k's result to `results` (one statement: `results || [result]`). */
  appendResult(id: string, result: EvaluationKResult): Promise<void>
  /** Final state, only from queued or running; undefined when it had already ended. */
  finish(id: string, ending: StoredJobEnding): Promise<Evaluation | undefined>
  /** `running` → `interrupted` (server start after a stop or crash); returns them. */
  interruptRunning(): Promise<Evaluation[]>
  /** Whether a queued or running evaluation uses the image set. */
  usesImageSet(imageSetId: string): Promise<boolean>
}

/** Creates the {@link EvaluationRepo}. */
export function createEvaluationRepo(db: Database): EvaluationRepo {
  return {
    async insert(id, name, params) {
      const [row] = await db.insert(evaluations).values({ id, name, status: 'queued', params }).returning()
      return toStored(row!)
    },
    async get(id) {
      const [row] = await db.select().from(evaluations).where(eq(evaluations.id, id))
      return row === undefined ? undefined : toStored(row)
    },
    async list() {
      const rows = await db
        .select()
        .from(evaluations)
        .orderBy(desc(evaluations.createdAt), desc(evaluations.id))
      return rows.map((r) => toStored(r).evaluation)
    },
    async listQueued() {
      const rows = await db
        .select()
        .from(evaluations)
        .where(eq(evaluations.status, 'queued'))
        .orderBy(asc(evaluations.createdAt), asc(evaluations.id))
      return rows.map(toStored)
    },
    async markRunning(id) {
      const [row] = await db
        .update(evaluations)
        .set({ status: 'running', startedAt: sql`now()` })
        .where(and(eq(evaluations.id, id), eq(evaluations.status, 'queued')))
        .returning()
      return row === undefined ? undefined : toStored(row)
    },
    async setProgress(id, progress) {
      await db
        .update(evaluations)
        .set({ progress })
        .where(and(eq(evaluations.id, id), eq(evaluations.status, 'running')))
    },
    async appendResult(id, result) {
      await db
        .update(evaluations)
        .set({ results: sql`${evaluations.results} || ${JSON.stringify([result])}::jsonb` })
        .where(and(eq(evaluations.id, id), eq(evaluations.status, 'running')))
    },
    async finish(id, ending) {
      const [row] = await db
        .update(evaluations)
        .set({
          status: ending.status,
          error: ending.error ?? null,
          ...(ending.status === 'succeeded' ? { progress: 1 } : {}),
          finishedAt: sql`now()`,
        })
        .where(and(eq(evaluations.id, id), inArray(evaluations.status, ['queued', 'running'])))
        .returning()
      return row === undefined ? undefined : toStored(row).evaluation
    },
    async interruptRunning() {
      const rows = await db
        .update(evaluations)
        .set({
          status: 'interrupted',
          error: { code: 'INTERRUPTED', message: 'the server stopped while the evaluation was running' },
          finishedAt: sql`now()`,
        })
        .where(eq(evaluations.status, 'running'))
        .returning()
      return rows.map((r) => toStored(r).evaluation)
    },
    async usesImageSet(imageSetId) {
      const rows = await db
        .select({ id: evaluations.id })
        .from(evaluations)
        .where(
          and(
            inArray(evaluations.status, ['queued', 'running']),
            sql`${evaluations.params}->>'imageSetId' = ${imageSetId}`,
          ),
        )
        .limit(1)
      return rows.length > 0
    },
  }
}
