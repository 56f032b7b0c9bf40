import type { ServerResponse } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from './api-error.ts'

/**
 * Classes of open reads, each bounded on its own: `heavy` reads (previews, exports, event pages:
 * megabytes to build or send) and every other `read` of the API. Writes are bounded elsewhere
 * (auth, the write rate limit, the job queues).
 */
export type ReadClass = 'heavy' | 'read'

/** Reads never bounded: answered from memory, and what a probe or the web's form needs at once. */
export const UNBOUNDED_READS: ReadonlySet<string> = new Set(['/api/health', '/api/limits'])

/** Routes (as registered) of the `heavy` class. */
export const HEAVY_READS: ReadonlySet<string> = new Set([
  '/api/datasets/:id/preview',
  '/api/vocabularies/:id/export',
  '/api/vocabularies/:id/assignments',
  '/api/runs/:id/events',
  '/api/runs/:id/iterations',
  '/api/evaluations/:id/events',
  '/api/studies/:id/events',
])

/** Each class's bound: reads at once, and reads that may wait for one of them (more → 503 `SERVER_BUSY`). */
export const READ_CLASS_BOUNDS: Record<ReadClass, { running: number; waiting: number }> = {
  heavy: { running: 2, waiting: 32 },
  read: { running: 8, waiting: 128 },
}

/** Seconds a client is told to wait (`Retry-After`) when a bound refuses it. */
export const READ_RETRY_AFTER_SECONDS = 1

/** The bounded class of a GET/HEAD request by its matched route, or undefined (health, static files, no route). */
export function readClassOf(method: string, route: string | undefined): ReadClass | undefined {
  if ((method !== 'GET' && method !== 'HEAD') || route === undefined || UNBOUNDED_READS.has(route))
    return undefined
  if (HEAVY_READS.has(route)) return 'heavy'
  return route.startsWith('/api/') || route === '/metrics' ? 'read' : undefined
}

/** A FIFO of bounded size in front of a bounded number of running reads. */
class ReadGate {
  private running = 0
  private readonly waiting: Array<() => void> = []

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

  /**
   * Holds a slot for the response `raw` until it closes (sent, failed or the client gone).
   * Resolves once the slot is held, or once `raw` closed while waiting (then nothing is held).
   * @throws ApiError 503 `SERVER_BUSY` when every slot is taken and the queue is full.
   */
  async enter(raw: ServerResponse, readClass: ReadClass): Promise<void> {
    if (this.running < this.limit) {
      this.running++
      raw.once('close', () => this.leave())
      return
    }
    if (this.waiting.length >= this.maxWaiting) {
      throw new ApiError(
        503,
        'SERVER_BUSY',
        `too many ${readClass} reads at once (${this.limit} running, ${this.maxWaiting} waiting); retry after ${READ_RETRY_AFTER_SECONDS} s`,
      )
    }
    await new Promise<void>((resolve) => {
      let held = false
      const wake = () => {
        held = true
        this.running++
        resolve()
      }
      this.waiting.push(wake)
      raw.once('close', () => {
        if (held) this.leave()
        else {
          this.waiting.splice(this.waiting.indexOf(wake), 1)
          resolve()
        }
      })
    })
  }

  private leave(): void {
    this.running--
    this.waiting.shift()?.()
  }
}

/**
 * Starts queued continuations one per event-loop turn: each runs from its own `setImmediate`, and
 * the next is armed from inside it, so it lands in the next turn's check phase, after a poll for
 * I/O. Reads answered from memory or from PGlite (whose queries finish synchronously inside their
 * promises) otherwise ran back to back — chained through `close` (emitted on `process.nextTick`)
 * and promise continuations, or batched in one check phase — and a flood held the loop, health
 * included, for 200–900 ms.
 */
class Turns {
  private readonly queue: Array<() => void> = []
  private armed = false

  /** Resolves on a later event-loop turn, after every continuation queued before it. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push(resolve)
      this.arm()
    })
  }

  private arm(): void {
    if (this.armed || this.queue.length === 0) return
    this.armed = true
    setImmediate(() => {
      this.armed = false
      this.queue.shift()?.()
      this.arm()
    })
  }
}

/** Options of {@link readLimitsPlugin}. */
export interface ReadLimitsOptions {
  /** Open reads one client (IP address) may have at once; more → 429 `TOO_MANY_READS`. */
  maxReadsPerClient: number
}

function refuse(reply: FastifyReply, err: ApiError): never {
  reply.header('retry-after', String(READ_RETRY_AFTER_SECONDS))
  throw err
}

/**
 * Bounds open reads so a flood of them cannot stall the server: at most `maxReadsPerClient` per
 * client address at once (429 `TOO_MANY_READS`), then each {@link ReadClass} runs a few at a time
 * with a bounded queue behind (503 `SERVER_BUSY`); both answers carry `Retry-After`. Checked at
 * onRequest, before the body, validation or any query. `/api/health` and `/api/limits` are never
 * counted nor queued.
 */
async function readLimitsImpl(app: FastifyInstance, options: ReadLimitsOptions): Promise<void> {
  const perClient = new Map<string, number>()
  const gates: Record<ReadClass, ReadGate> = {
    heavy: new ReadGate(READ_CLASS_BOUNDS.heavy.running, READ_CLASS_BOUNDS.heavy.waiting),
    read: new ReadGate(READ_CLASS_BOUNDS.read.running, READ_CLASS_BOUNDS.read.waiting),
  }
  const turns = new Turns()

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const readClass = readClassOf(request.method, request.routeOptions.url)
    if (readClass === undefined) return
    const client = request.ip
    const open = perClient.get(client) ?? 0
    if (open >= options.maxReadsPerClient) {
      refuse(
        reply,
        new ApiError(
          429,
          'TOO_MANY_READS',
          `this client already has ${open} reads in progress (CODEBOOK_MAX_READS_PER_CLIENT); retry after ${READ_RETRY_AFTER_SECONDS} s`,
        ),
      )
    }
    perClient.set(client, open + 1)
    reply.raw.once('close', () => {
      const left = (perClient.get(client) ?? 1) - 1
      if (left > 0) perClient.set(client, left)
      else perClient.delete(client)
    })
    try {
      await gates[readClass].enter(reply.raw, readClass)
    } catch (err) {
      if (err instanceof ApiError) refuse(reply, err)
      throw err
    }
    // One read starts per event-loop turn (see Turns): the poll phase runs between any two.
    await turns.next()
  })
}

/** Registers {@link readLimitsImpl} on every route. */
export const readLimitsPlugin = fp(readLimitsImpl, { name: 'codebook-read-limits', fastify: '5.x' })
