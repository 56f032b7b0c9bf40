/**
 * The socket.io contract: every event name with its payload, in socket.io's typed-events form
 * (`Server<ClientToServerEvents, ServerToClientEvents>` on the server,
 * `Socket<ServerToClientEvents, ClientToServerEvents>` in clients), and the zod schema of each
 * payload for the side that receives it. Types only hint; receivers still parse.
 */
import type { z } from 'zod'
import { DatasetEvent } from './datasets.ts'
import { JobJoin, type JobJoinAck, JobLeave, JobSocketEvent } from './jobs.ts'
import { RunChanged } from './runs.ts'

/** Every socket.io event name Codebook uses; code names events through this, never a string of its own. */
export const socketEvents = {
  /** client → server: `JobJoin` (a run, an evaluation or a study), acknowledged with `JobJoinAck`. */
  jobJoin: 'job:join',
  /** client → server: `JobLeave`. */
  jobLeave: 'job:leave',
  /** server → a socket that joined the job: `JobSocketEvent`, in seq order without gaps or duplicates. */
  jobEvent: 'job:event',
  /** server → every client: `DatasetEvent` (import progress, state, deletion). */
  datasetEvent: 'dataset:event',
  /** server → every client: `RunChanged` (a run created, changed state, relabelled or deleted). */
  runChanged: 'run:changed',
} as const

/** Events the server emits (socket.io's second `Server` type parameter, the client's first). */
export interface ServerToClientEvents {
  [socketEvents.jobEvent]: (event: JobSocketEvent) => void
  [socketEvents.datasetEvent]: (event: DatasetEvent) => void
  [socketEvents.runChanged]: (event: RunChanged) => void
}

/**
 * Events clients emit (socket.io's first `Server` type parameter, the client's second). The
 * server answers `job:join` only when the client passes an acknowledgement callback.
 */
export interface ClientToServerEvents {
  [socketEvents.jobJoin]: (join: JobJoin, ack: (reply: JobJoinAck) => void) => void
  [socketEvents.jobLeave]: (leave: JobLeave) => void
}

/** The schema of each server event's payload: clients parse what they receive with it. */
export const serverEventSchemas = {
  [socketEvents.jobEvent]: JobSocketEvent,
  [socketEvents.datasetEvent]: DatasetEvent,
  [socketEvents.runChanged]: RunChanged,
} as const satisfies { [E in keyof ServerToClientEvents]: z.ZodType<Parameters<ServerToClientEvents[E]>[0]> }

/** The schema of each client event's payload: the server parses what it receives with it. */
export const clientEventSchemas = {
  [socketEvents.jobJoin]: JobJoin,
  [socketEvents.jobLeave]: JobLeave,
} as const satisfies { [E in keyof ClientToServerEvents]: z.ZodType<Parameters<ClientToServerEvents[E]>[0]> }
