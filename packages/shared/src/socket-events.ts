/**
 * The socket.io contract: every event name with its payload, in socket.io's typed-events form
 * (`Server<ClientToServerEvents, ServerToClientEvents>` on the server,
 * `Socket<ServerToClientEvents, ClientToServerEvents>` in clients), and the zod schema of each
 * payload for the side that receives it. Types only hint; receivers still parse.
 */
import type { z } from 'zod'
import { DatasetEvent } from './datasets.ts'
import { EvaluationEvent } from './evaluations.ts'
import { RunJoin, type RunJoinAck, RunLeave, RunSocketEvent } from './runs.ts'
import { StudyEvent } from './studies.ts'

/** Every socket.io event name Codebook uses; code names events through this, never a string of its own. */
export const socketEvents = {
  /** client → server: `RunJoin`, acknowledged with `RunJoinAck`. */
  runJoin: 'run:join',
  /** client → server: `RunLeave`. */
  runLeave: 'run:leave',
  /** server → a joined socket: `RunSocketEvent`, in seq order without gaps or duplicates. */
  runEvent: 'run:event',
  /** server → every client: `DatasetEvent` (import progress, state, deletion). */
  datasetEvent: 'dataset:event',
  /** server → every client: `EvaluationEvent` (state, progress, result per k). */
  evaluationEvent: 'evaluation:event',
  /** server → every client: `StudyEvent` (state, progress, results per cell, deletion). */
  studyEvent: 'study:event',
} as const

/** Events the server emits (socket.io's second `Server` type parameter, the client's first). */
export interface ServerToClientEvents {
  [socketEvents.runEvent]: (event: RunSocketEvent) => void
  [socketEvents.datasetEvent]: (event: DatasetEvent) => void
  [socketEvents.evaluationEvent]: (event: EvaluationEvent) => void
  [socketEvents.studyEvent]: (event: StudyEvent) => void
}

/**
 * Events clients emit (socket.io's first `Server` type parameter, the client's second). The
 * server answers `run:join` only when the client passes an acknowledgement callback.
 */
export interface ClientToServerEvents {
  [socketEvents.runJoin]: (join: RunJoin, ack: (reply: RunJoinAck) => void) => void
  [socketEvents.runLeave]: (leave: RunLeave) => void
}

/** The schema of each server event's payload: clients parse what they receive with it. */
export const serverEventSchemas = {
  [socketEvents.runEvent]: RunSocketEvent,
  [socketEvents.datasetEvent]: DatasetEvent,
  [socketEvents.evaluationEvent]: EvaluationEvent,
  [socketEvents.studyEvent]: StudyEvent,
} as const satisfies { [E in keyof ServerToClientEvents]: z.ZodType<Parameters<ServerToClientEvents[E]>[0]> }

/** The schema of each client event's payload: the server parses what it receives with it. */
export const clientEventSchemas = {
  [socketEvents.runJoin]: RunJoin,
  [socketEvents.runLeave]: RunLeave,
} as const satisfies { [E in keyof ClientToServerEvents]: z.ZodType<Parameters<ClientToServerEvents[E]>[0]> }
