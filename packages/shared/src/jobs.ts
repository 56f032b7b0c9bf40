/**
 * The stored-job model every long job of the server shares (runs, evaluations, studies): one
 * status lifecycle and one seq'd event feed with replay. Each kind's event
 * payloads are in `job-events.ts`.
 */
import { z } from 'zod'
import { EntityId } from './ids.ts'

/**
 * Lifecycle of a stored job: `queued` → `running` → one final status. `interrupted`: the server
 * stopped while it ran (a run resumes from its checkpoint with `POST /api/runs/:id/resume`).
 */
export const jobStatuses = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted'] as const
export const JobStatus = z.enum(jobStatuses)
export type JobStatus = z.infer<typeof JobStatus>

/** Statuses after which a job never changes again (unless a run is resumed). */
export const finalJobStatuses = [
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
] as const satisfies readonly JobStatus[]
export type FinalJobStatus = (typeof finalJobStatuses)[number]

/** Whether a job in `status` has ended. */
export function isFinalJobStatus(status: JobStatus): status is FinalJobStatus {
  return (finalJobStatuses as readonly string[]).includes(status)
}

/**
 * On a job record read by `GET` (not in `state` events): the seq of the job's last event at the
 * time of the read. A client that holds the record follows the job with `job:join` from here, so
 * the server replays only what happened since.
 */
export const LastEventSeq = z.number().int().nonnegative().optional()

/** The kinds of stored job; each has its table, its routes and its events in one feed. */
export const jobKinds = ['run', 'evaluation', 'study'] as const
export const JobKind = z.enum(jobKinds)
export type JobKind = z.infer<typeof JobKind>

/**
 * One stored event of a job; `seq` is 1, 2, 3, … per job without gaps. `type` and `data` are
 * the kind's (see `jobEventData`): `state` always carries the whole job record.
 */
export const JobEvent = z.object({
  seq: z.number().int().positive(),
  type: z.string().min(1),
  data: z.unknown(),
})
export type JobEvent = z.infer<typeof JobEvent>

/** `GET /api/{runs,evaluations,studies}/:id/events?after=SEQ&limit=N`. */
export const JobEventList = z.object({ events: z.array(JobEvent) })
export type JobEventList = z.infer<typeof JobEventList>

/** socket.io `job:event` payload, sent to each socket that joined the job (`job:join`). */
export const JobSocketEvent = JobEvent.extend({ kind: JobKind, id: z.string() })
export type JobSocketEvent = z.infer<typeof JobSocketEvent>

/** socket.io `job:join` payload: the client has every event of the job up to `lastSeq` (0: none). */
export const JobJoin = z.object({
  kind: JobKind,
  // The shared id format (no NUL, which PostgreSQL text cannot hold): refused here, before any query.
  id: EntityId,
  lastSeq: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 31 - 1),
})
export type JobJoin = z.infer<typeof JobJoin>

/**
 * Acknowledgement of `job:join`: `ok` once everything up to `lastSeq` is queued for the socket
 * (live events follow), or the coded reason the join failed (`BAD_JOIN`, `JOB_JOIN_FAILED`, …).
 */
export const JobJoinAck = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), lastSeq: z.number().int().nonnegative() }),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
])
export type JobJoinAck = z.infer<typeof JobJoinAck>

/** socket.io `job:leave` payload: stop sending this job's events to the socket. */
export const JobLeave = JobJoin.pick({ kind: true, id: true })
export type JobLeave = z.infer<typeof JobLeave>
