import type { JobEvent, JobKind } from '@codebook/shared'
import { and, asc, eq, gt, sql } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import type { Database } from '../db/db-plugin.ts'
import { jobEvents } from '../db/schema.ts'
import { createOrderedUpdates } from './ordered-updates.ts'

/** The stored, published event feed of every job kind. */
export interface JobFeed {
  /**
   * Appends an event with the job's next seq, then publishes it. Appends of one job are
   * serialized, so seq order and publish order agree; a failed append is logged, never thrown.
   */
  record(kind: JobKind, id: string, type: string, data: unknown): Promise<JobEvent | undefined>
  /** Stored events of the job with seq > after, in seq order; at most `limit` when given. */
  eventsAfter(kind: JobKind, id: string, after: number, limit?: number): Promise<JobEvent[]>
  /** Deletes a deleted job's events (after the appends queued so far). */
  remove(kind: JobKind, id: string): Promise<void>
  /** Resolves once the job's appends so far are stored (every job's without arguments). */
  flushed(kind?: JobKind, id?: string): Promise<unknown>
}

/**
 * Creates the {@link JobFeed} over the `job_events` table: every event is stored before
 * `publish` sees it (once per stored event, in seq order per job).
 */
export function createJobFeed(
  db: Database,
  publish: (kind: JobKind, id: string, event: JobEvent) => void,
  log: FastifyBaseLogger,
): JobFeed {
  /** Per-job chains of appends (seq order in the table = publish order); a failure is logged there. */
  const appends = createOrderedUpdates(log, 'job event')
  const keyOf = (kind: JobKind, id: string) => `${kind}:${id}`

  async function append(kind: JobKind, id: string, type: string, data: unknown): Promise<JobEvent> {
    // The next seq inside one statement; the primary key (kind, job_id, seq) refuses a duplicate.
    const next = sql`(select coalesce(max(${jobEvents.seq}), 0) + 1 from ${jobEvents} where ${jobEvents.kind} = ${kind} and ${jobEvents.jobId} = ${id})`
    const [row] = await db
      .insert(jobEvents)
      .values({ kind, jobId: id, seq: next, type, data })
      .returning({ seq: jobEvents.seq, type: jobEvents.type, data: jobEvents.data })
    return row!
  }

  return {
    async record(kind, id, type, data) {
      let event: JobEvent | undefined
      await appends.inOrder(keyOf(kind, id), async () => {
        event = await append(kind, id, type, data)
        publish(kind, id, event)
      })
      return event
    },
    async eventsAfter(kind, id, after, limit) {
      const query = db
        .select({ seq: jobEvents.seq, type: jobEvents.type, data: jobEvents.data })
        .from(jobEvents)
        .where(and(eq(jobEvents.kind, kind), eq(jobEvents.jobId, id), gt(jobEvents.seq, after)))
        .orderBy(asc(jobEvents.seq))
      return limit === undefined ? query : query.limit(limit)
    },
    async remove(kind, id) {
      // A deleted job appends nothing more: its events go once the appends queued so far are stored.
      await appends.pending(keyOf(kind, id))
      await db.delete(jobEvents).where(and(eq(jobEvents.kind, kind), eq(jobEvents.jobId, id)))
    },
    flushed: (kind, id) =>
      kind === undefined || id === undefined
        ? appends.all()
        : Promise.resolve(appends.pending(keyOf(kind, id))),
  }
}
