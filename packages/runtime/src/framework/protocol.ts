import { z } from 'zod'
import { CodebookError } from '../errors.ts'

/**
 * The framework's own control messages, driver ↔ worker. Applications' messages travel inside
 * `app` (their schemas are the application's); everything is parsed on arrival, never cast.
 */
const PeerAddress = z.object({ host: z.string(), port: z.number().int().min(0).max(65535) })

/** Worker → driver, once, on connecting. */
export const RegisterMessage = z.object({
  type: z.literal('register'),
  token: z.string().nullable(),
  host: z.string(),
  port: z.number().int().min(0).max(65535),
  rack: z.string().nullable(),
  pid: z.number().int(),
  /** The worker's host name (`os.hostname()` or `--host-name`): a topology maps it to a rack. */
  hostName: z.string().optional(),
})
export type RegisterMessage = z.infer<typeof RegisterMessage>

const id = z.number().int().nonnegative()

/** Driver → worker requests; each is answered by one {@link ReplyMessage} with the same id. */
export const RequestMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('setup'),
    id,
    rank: z.number().int().nonnegative(),
    peers: z.array(PeerAddress),
    racks: z.array(z.string()),
    chunkBytes: z.number().int().positive(),
    session: z.number().int().nonnegative().default(0),
  }),
  z.object({ type: z.literal('peers'), id, peers: z.array(PeerAddress), racks: z.array(z.string()) }),
  z.object({ type: z.literal('chunk-bytes'), id, chunkBytes: z.number().int().positive() }),
  /** Makes the worker refuse data-plane connections (tests of alternative chain paths). */
  z.object({ type: z.literal('close-listener'), id }),
  z.object({ type: z.literal('abort'), id, ops: z.array(z.number().int().nonnegative()) }),
  /** One message of application `app`; `message` is checked against that application's schema. */
  z.object({ type: z.literal('app'), id, app: z.string(), message: z.unknown() }),
  z.object({ type: z.literal('shutdown'), id }),
])
export type RequestMessage = z.infer<typeof RequestMessage>
/** A request as the driver writes it (defaults may be left out); the pool assigns the id. */
export type Request = DistributiveOmit<z.input<typeof RequestMessage>, 'id'>
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** Driver → worker, instead of set-up: the pool refused this worker (`JOIN_REFUSED`: no or a wrong secret). */
export const RefusedMessage = z.object({
  type: z.literal('refused'),
  code: z.string(),
  message: z.string(),
})

/**
 * Worker → driver: an event of request `id` while it runs (an application's per-iteration
 * report); any number may precede the request's one reply.
 */
export const EventMessage = z.object({ type: z.literal('event'), id, body: z.unknown() })
export type EventMessage = z.infer<typeof EventMessage>

/** Worker → driver: the answer to request `id`. */
export const ReplyMessage = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('reply'), id, ok: z.literal(true), result: z.unknown() }),
  z.object({
    type: z.literal('reply'),
    id,
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string(), ranks: z.array(z.number().int()).default([]) }),
  }),
])
export type ReplyMessage = z.infer<typeof ReplyMessage>

/**
 * Parses a control message body with `schema`; a message that does not fit is a coded
 * `CONTROL_BAD_MESSAGE` naming the first problem, never a cast.
 */
export function parseControl<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const at = issue?.path.length ? ` at ${issue.path.join('.')}` : ''
  throw new CodebookError('CONTROL_BAD_MESSAGE', `bad ${what}${at}: ${issue?.message ?? 'invalid'}`)
}
