import type { FastifyBaseLogger } from 'fastify'

/** Why a job was stopped before it ended on its own: the `reason` of its aborted signal. */
export class JobStopped extends Error {
  constructor(
    /** `cancelled` by a user; `interrupted` by the server shutting down. */
    readonly why: 'cancelled' | 'interrupted',
    message = why === 'cancelled' ? 'cancelled by request' : 'the server is shutting down',
  ) {
    super(message)
  }

  /**
   * The stored ending of a job stopped this way: `cancelled` with the kind's `cancelledCode`, or
   * `interrupted` with `INTERRUPTED` (`noun`: what the job is, e.g. `run`).
   */
  ending(cancelledCode: string, noun: string) {
    const error =
      this.why === 'cancelled'
        ? { code: cancelledCode, message: 'cancelled by request' }
        : { code: 'INTERRUPTED', message: `the server stopped while the ${noun} was running` }
    return { status: this.why, error }
  }
}

/** What a kind of background work (runs, evaluations, imports, simulations, …) tells its queue. */
export interface JobKind {
  /** Names the kind in logs: `run`, `evaluation`, `import`, … */
  name: string
  /** Jobs of this kind running at once; more wait in arrival order. */
  concurrency: number
  /** Jobs that may wait; `submit` throws `queueFull(waiting)` beyond. Default: unbounded. */
  maxQueued?: number
  queueFull?(waiting: number): Error
  /** What `submit` throws once the queue is closed. */
  closedError(): Error
  /**
   * Does job `id`. `signal` aborts with a {@link JobStopped} on cancel or close; the job records its
   * own outcome (a stopped job its `cancelled` / `interrupted` state). A rejection is logged only.
   */
  run(id: string, signal: AbortSignal): Promise<void>
  /**
   * A job that leaves the queue without having started: cancelled while waiting (`why` is
   * `cancelled`), or left waiting when the queue closes (`interrupted`: a stored job stays queued
   * for the next start; a request-scoped one is refused).
   */
  dropped?(id: string, stop: JobStopped): Promise<void> | void
  /**
   * Start-up after a restart: marks the jobs the last server left running as interrupted and
   * returns the ids still waiting, oldest first; they are queued again.
   */
  recover?(): Promise<string[]>
}

/** A FIFO of one kind of background work with a concurrency limit, cancel, close and restart recovery. */
export interface JobQueue {
  /** Queues job `id` after the waiting ones. @throws the kind's `queueFull` / `closedError`. */
  submit(id: string): void
  /** Throws what `submit` would throw now (check before storing a job that is then submitted). */
  ensureRoom(): void
  /** `queued`, `running`, or undefined for a job this queue does not hold. */
  state(id: string): 'queued' | 'running' | undefined
  /**
   * Stops job `id` with `stop` (default: cancelled): a waiting one is removed (`dropped`), a running
   * one's signal aborts. Resolves once it has left the queue: true, or false when it held no such job.
   */
  cancel(id: string, stop?: JobStopped): Promise<boolean>
  /** Resolves once job `id` is neither waiting nor running (at once when it is neither). */
  settled(id: string): Promise<void>
  /** Jobs waiting and running now. */
  size(): { queued: number; running: number }
  /** Recovers after a restart (`recover`), queues what still waits and starts it. */
  start(): Promise<void>
  /**
   * Stops taking jobs; waiting ones are dropped as `interrupted` and running ones aborted with
   * `interrupted`. Resolves once every job has left.
   */
  close(): Promise<void>
}

interface Entry {
  id: string
  state: 'queued' | 'running'
  controller: AbortController
  left: Promise<void>
  leave(): void
}

/**
 * Creates the {@link JobQueue} of `kind`: the one place the server's background work is queued,
 * limited, stopped and recovered, so a fix to one of them is a fix to all.
 */
export function createJobQueue(kind: JobKind, log: FastifyBaseLogger): JobQueue {
  const entries = new Map<string, Entry>()
  const waiting: Entry[] = []
  let running = 0
  let closed = false

  function leave(entry: Entry): void {
    if (entries.get(entry.id) === entry) entries.delete(entry.id)
    entry.leave()
  }

  function pump(): void {
    while (!closed && running < kind.concurrency && waiting.length > 0) {
      const entry = waiting.shift()!
      entry.state = 'running'
      running++
      void kind
        .run(entry.id, entry.controller.signal)
        .catch((err) => log.error({ err, job: entry.id, kind: kind.name }, `${kind.name} crashed`))
        .finally(() => {
          running--
          leave(entry)
          pump()
        })
    }
  }

  async function drop(entry: Entry, stop: JobStopped): Promise<void> {
    const at = waiting.indexOf(entry)
    if (at >= 0) waiting.splice(at, 1)
    try {
      await kind.dropped?.(entry.id, stop)
    } catch (err) {
      log.error({ err, job: entry.id, kind: kind.name }, `${kind.name} could not be dropped`)
    } finally {
      leave(entry)
    }
  }

  function ensureRoom(): void {
    if (closed) throw kind.closedError()
    if (kind.maxQueued !== undefined && waiting.length >= kind.maxQueued)
      throw kind.queueFull?.(waiting.length) ?? new Error(`${kind.name} queue full`)
  }

  function enqueue(id: string): void {
    if (entries.has(id)) throw new Error(`${kind.name} ${id} is already queued or running`)
    let leaveEntry = () => {}
    const left = new Promise<void>((resolve) => {
      leaveEntry = resolve
    })
    const entry: Entry = { id, state: 'queued', controller: new AbortController(), left, leave: leaveEntry }
    entries.set(id, entry)
    waiting.push(entry)
  }

  return {
    submit(id) {
      ensureRoom()
      enqueue(id)
      pump()
    },

    ensureRoom,

    state: (id) => entries.get(id)?.state,

    async cancel(id, stop = new JobStopped('cancelled')) {
      const entry = entries.get(id)
      if (entry === undefined) return false
      if (entry.state === 'queued') await drop(entry, stop)
      else entry.controller.abort(stop)
      await entry.left
      return true
    },

    settled: async (id) => entries.get(id)?.left,

    size: () => ({ queued: waiting.length, running }),

    async start() {
      const ids = (await kind.recover?.()) ?? []
      if (ids.length > 0)
        log.info({ count: ids.length, kind: kind.name }, `queued ${kind.name}s queued again`)
      for (const id of ids) if (!entries.has(id)) enqueue(id)
      pump()
    },

    async close() {
      closed = true
      const stop = new JobStopped('interrupted')
      const all = [...entries.values()]
      await Promise.all(waiting.slice().map((entry) => drop(entry, stop)))
      for (const entry of all) entry.controller.abort(stop)
      await Promise.all(all.map((entry) => entry.left))
    },
  }
}
