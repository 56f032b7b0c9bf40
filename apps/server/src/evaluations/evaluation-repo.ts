import type { Evaluation, EvaluationKResult, EvaluationParams } from '@codebook/shared'
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { evaluations } from '../db/schema.ts'
import { type JobEnding, jobTransitions, lastEventSeq } from '../jobs/job-table.ts'

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

function toStored(row: Row, eventSeq?: number): StoredEvaluation {
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
      ...(eventSeq === undefined ? {} : { lastEventSeq: eventSeq }),
    },
    params: stored,
  }
}

/**
 * Evaluation persistence over drizzle (portable SQL: PGlite and PostgreSQL). The lifecycle's writes
 * are the job table's ({@link jobTransitions}); writes during a run are guarded by `status = 'running'`,
 * so a late write cannot touch an ended evaluation.
 */
export interface EvaluationRepo {
  insert(id: string, name: string, params: StoredEvaluationParams): Promise<StoredEvaluation>
  get(id: string): Promise<StoredEvaluation | undefined>
  /** Newest first. */
  list(): Promise<Evaluation[]>
  /** Ids of queued evaluations, oldest first. */
  queuedIds(): Promise<string[]>
  /** queued → running; undefined when no longer queued. */
  markRunning(id: string): Promise<StoredEvaluation | undefined>
  setProgress(id: string, progress: number): Promise<void>
  /** Appends one k's result to `results` (one statement: `results || [result]`). */
  appendResult(id: string, result: EvaluationKResult): Promise<void>
  /** Final state, only from queued or running; undefined when it had already ended. */
  finish(id: string, ending: JobEnding): Promise<Evaluation | undefined>
  /** `running` → `interrupted` (server start after a stop or crash); returns them. */
  interruptRunning(): Promise<Evaluation[]>
  /** Whether a queued or running evaluation uses the image set. */
  usesImageSet(imageSetId: string): Promise<boolean>
}

/** Creates the {@link EvaluationRepo}. */
export function createEvaluationRepo(db: Database): EvaluationRepo {
  const job = jobTransitions<Row>(db, evaluations, 'evaluation')
  const storedOrUndefined = (row: Row | undefined) => (row === undefined ? undefined : toStored(row))
  /** A row read for clients, with its feed's last seq. */
  const withSeq = { row: evaluations, seq: lastEventSeq('evaluation', evaluations) }
  return {
    async insert(id, name, params) {
      const [row] = await db.insert(evaluations).values({ id, name, status: 'queued', params }).returning()
      return toStored(row!)
    },
    async get(id) {
      const [read] = await db.select(withSeq).from(evaluations).where(eq(evaluations.id, id))
      return read === undefined ? undefined : toStored(read.row, read.seq)
    },
    async list() {
      const rows = await db
        .select(withSeq)
        .from(evaluations)
        .orderBy(desc(evaluations.createdAt), desc(evaluations.id))
      return rows.map((r) => toStored(r.row, r.seq).evaluation)
    },
    queuedIds: job.queuedIds,
    markRunning: async (id) => storedOrUndefined(await job.markRunning(id)),
    async setProgress(id, progress) {
      await job.whileRunning(id, { progress })
    },
    async appendResult(id, result) {
      await job.whileRunning(id, {
        results: sql`${evaluations.results} || ${JSON.stringify([result])}::jsonb`,
      })
    },
    finish: async (id, ending) =>
      storedOrUndefined(await job.finish(id, ending, ending.status === 'succeeded' ? { progress: 1 } : {}))
        ?.evaluation,
    interruptRunning: async () => (await job.interruptRunning()).map((r) => toStored(r).evaluation),
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
