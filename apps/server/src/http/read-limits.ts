import type { ServerResponse } from 'node:http'
import { setImmediate as nextMacrotask } from 'node:timers/promises'
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

/** A read waiting for a slot: `wake` hands it the slot; `gone` once its client left. */
interface Waiter {
  wake: () => void
  gone: boolean
}

/**
 * A FIFO of bounded size in front of a bounded number of running reads. A freed slot passes to
 * the next waiter on a fresh macrotask (`setImmediate`), never in the same tick: a response's
 * `close` is emitted on `process.nextTick`, and reads answered from memory or from PGlite (whose
 * queries run synchronously inside their promise) would otherwise run the whole queue in one
 * microtask drain — 200 queued list reads held the event loop, health included, for 200+ ms.
 */
class ReadGate {
  private running = 0
  private readonly waiting: Waiter[] = []

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
      const waiter: Waiter = {
        gone: false,
        wake: () => {
          held = true
          resolve()
        },
      }
      this.waiting.push(waiter)
      raw.once('close', () => {
        if (held) return this.leave()
        const at = this.waiting.indexOf(waiter)
        // Still queued: drop it. Already handed a slot (its wake not yet run): `handOver` passes it on.
        if (at >= 0) this.waiting.splice(at, 1)
        else waiter.gone = true
        resolve()
      })
    })
  }

  /** A running read finished: its slot goes to the next waiter (on a fresh macrotask), or is freed. */
  private leave(): void {
    const next = this.waiting.shift()
    if (next === undefined) {
      this.running--
      return
    }
    setImmediate(() => (next.gone ? this.leave() : next.wake()))
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
    // Each read's handler starts on its own macrotask, so the poll phase (health, new
    // connections) runs between reads: PGlite's queries finish synchronously inside their
    // promises, and reads chained through microtasks held the loop for 200–900 ms in a flood.
    await nextMacrotask()
  })
}

/** Registers {@link readLimitsImpl} on every route. */
export const readLimitsPlugin = fp(readLimitsImpl, { name: 'codebook-read-limits', fastify: '5.x' })
