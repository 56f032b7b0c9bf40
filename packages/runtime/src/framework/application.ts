import type { z } from 'zod'
import type { DataPlane } from '../transport/data-plane.ts'

/** What the framework gives an application's handlers at a worker. */
export interface WorkerContext {
  /** This worker's data plane: collectives between workers run over it. */
  readonly plane: DataPlane
  /** Rack of every global rank (the driver's view, updated when a worker is replaced). */
  racks(): readonly string[]
  /** Monotonic milliseconds. */
  now(): number
}

/** What a handler gets for the one request it serves: the worker's context and a way to report while it runs. */
export interface RequestContext extends WorkerContext {
  /** Sends `body` to the driver as an event of this request (JSON; delivered in order, before the reply). */
  emit(body: unknown): void
}

/** A handler's answer: a JSON-able result and binary attachments (sent as views, no copy). */
export interface HandlerReply {
  result?: unknown
  blobs?: Uint8Array[]
}

/**
 * An iterative application on the Map-Collective framework (Twister's and Harp's sense): its
 * typed control messages (one zod discriminated union on `type`), the state each worker keeps
 * between messages (its partition, kernels, bounds) and the handler that serves a message with
 * that state, running collectives over `ctx.plane`. The worker parses every message with
 * `messages` before `handle` sees it; the driver parses it before sending
 * ({@link WorkerPool.call}). The framework never imports an application: workers are given the
 * list of applications they serve.
 */
export interface Application<M extends { type: string } = { type: string }, S = unknown> {
  /** Unique name, the key of the worker's registry (`kmeans`, `column-stats`). */
  readonly name: string
  readonly messages: z.ZodType<M>
  /** Called once per worker, at the application's first message. */
  createState(ctx: WorkerContext): S
  handle(state: S, message: M, blobs: Uint8Array[], ctx: RequestContext): Promise<HandlerReply>
  /** Releases the state (kernels, files) when the worker shuts down. */
  dispose?(state: S): Promise<void>
}

/** The message type of an application. */
export type MessageOf<A> = A extends Application<infer M, unknown> ? M : never

/** Identity with inference: `defineApplication({ name, messages, createState, handle })`. */
export function defineApplication<M extends { type: string }, S>(app: Application<M, S>): Application<M, S> {
  return app
}
