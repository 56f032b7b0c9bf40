import type { FinalJobStatus, JobKind, JobStatus } from '@codebook/shared'
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { PgColumn, PgTable, PgUpdateSetSource } from 'drizzle-orm/pg-core'
import type { Database } from '../db/db-plugin.ts'
import { jobEvents } from '../db/schema.ts'

/** A table with the stored-job columns (`jobColumns` in `db/schema.ts`). */
export type JobTable = PgTable & {
  id: PgColumn
  status: PgColumn
  error: PgColumn
  createdAt: PgColumn
  startedAt: PgColumn
  finishedAt: PgColumn
}

/** How a stored job ended. */
export interface JobEnding {
  status: FinalJobStatus
  error?: { code: string; message: string }
}

/**
 * The lifecycle's writes on one kind's table. Every transition is guarded by the current status
 * in its WHERE clause, so a late write cannot undo a final state.
 */
export interface JobTransitions<Row> {
  /** queued → running; undefined when no longer queued (cancelled meanwhile). */
  markRunning(id: string): Promise<Row | undefined>
  /** Final state (and the columns `also` sets), only from queued or running; undefined when it had already ended. */
  finish(id: string, ending: JobEnding, also?: Record<string, unknown>): Promise<Row | undefined>
  /** Sets columns of a running job; undefined when it is not running. */
  whileRunning(id: string, values: Record<string, unknown>): Promise<Row | undefined>
  /** `running` → `interrupted` (server start after a stop or crash); returns them. */
  interruptRunning(): Promise<Row[]>
  /** Ids of queued jobs, oldest first (the queue order after a restart). */
  queuedIds(): Promise<string[]>
  /**
   * One of `from` → queued (error and finish time cleared) when `also` holds; undefined otherwise.
   * Runs resume this way from their checkpoint.
   */
  requeue(id: string, from: readonly FinalJobStatus[], also?: SQL): Promise<Row | undefined>
}

/**
 * The {@link JobTransitions} of `table`, whose rows are `Row`. `noun` names the kind in the
 * error of an interrupted job.
 */
export function jobTransitions<Row>(db: Database, table: JobTable, noun: string): JobTransitions<Row> {
  // The table is generic here, so drizzle cannot type the SET clause; each caller's values are the table's own columns.
  const update = async (values: Record<string, unknown>, where: SQL | undefined): Promise<Row[]> =>
    (await db
      .update(table)
      .set(values as PgUpdateSetSource<typeof table>)
      .where(where)
      .returning()) as Row[]
  const status = (s: JobStatus) => eq(table.status, s)
  const first = (rows: Row[]) => rows[0]
  return {
    markRunning: async (id) =>
      first(
        await update({ status: 'running', startedAt: sql`now()` }, and(eq(table.id, id), status('queued'))),
      ),
    finish: async (id, ending, also) =>
      first(
        await update(
          { ...also, status: ending.status, error: ending.error ?? null, finishedAt: sql`now()` },
          and(eq(table.id, id), inArray(table.status, ['queued', 'running'])),
        ),
      ),
    whileRunning: async (id, values) => first(await update(values, and(eq(table.id, id), status('running')))),
    interruptRunning: () =>
      update(
        {
          status: 'interrupted',
          error: { code: 'INTERRUPTED', message: `the server stopped while the ${noun} was running` },
          finishedAt: sql`now()`,
        },
        status('running'),
      ),
    async queuedIds() {
      const rows = await db
        .select({ id: table.id })
        .from(table)
        .where(status('queued'))
        .orderBy(asc(table.createdAt), asc(table.id))
      return rows.map((r) => r.id as string)
    },
    requeue: async (id, from, also) =>
      first(
        await update(
          { status: 'queued', error: null, finishedAt: null },
          and(eq(table.id, id), inArray(table.status, [...from]), also),
        ),
      ),
  }
}

/**
 * A select column: the seq of the job's last event (0: none), read in the same statement as its
 * row, so a client joins the job's feed from exactly the record it holds (`lastEventSeq`).
 */
export function lastEventSeq(kind: JobKind, table: JobTable): SQL<number> {
  return sql<number>`(select coalesce(max(${jobEvents.seq}), 0) from ${jobEvents} where ${jobEvents.kind} = ${kind} and ${jobEvents.jobId} = ${table.id})`.mapWith(
    Number,
  )
}
