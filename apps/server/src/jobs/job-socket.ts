import {
  clientEventSchemas,
  type JobEvent,
  type JobJoinAck,
  type JobKind,
  type JobSocketEvent,
  socketEvents,
} from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import type { RealtimeServer, RealtimeSocket } from '../realtime/realtime-plugin.ts'

/** Defaults of {@link JobSocketOptions}. */
const DEFAULTS = { backlogPage: 256, recentEvents: 4096, maxQueuedPackets: 128 }
/** Database pages a watched job keeps for its sockets (with 256-event pages of 2 kB events, ~4 MB). */
const SHARED_PAGES = 8

/** A job's most recent events by seq (a ring), shared by every socket watching the job. */
class RecentEvents {
  private readonly ring: Array<JobEvent | undefined>
  private count = 0
  /** Highest seq published (0: none yet). */
  newest = 0

  constructor(private readonly capacity: number) {
    this.ring = new Array(capacity)
  }

  add(event: JobEvent): void {
    // Events arrive in seq order; one out of order is left to the database.
    if (event.seq <= this.newest) return
    this.count = event.seq === this.newest + 1 ? Math.min(this.count + 1, this.capacity) : 1
    this.newest = event.seq
    this.ring[event.seq % this.capacity] = event
  }

  get(seq: number): JobEvent | undefined {
    return seq <= this.newest && seq > this.newest - this.count ? this.ring[seq % this.capacity] : undefined
  }
}

/**
 * A job's recent database pages, shared by its sockets: sockets that fell behind together (a
 * burst of events outran them all) read and parse each page once, not once per socket. A read is
 * shared while in flight; once done it is kept only if full (a short page is the log's end at the
 * time, soon stale). At most `keep` pages are held; beyond, a page no socket still needs goes
 * first, else the one needed furthest in the future (the highest), so a socket that fell further
 * behind than the others still finds the pages just ahead of it.
 */
class SharedPages {
  private readonly pages: Array<{ after: number; read: Promise<JobEvent[]>; events?: JobEvent[] }> = []

  constructor(
    private readonly keep: number,
    private readonly size: number,
    private readonly load: (after: number) => Promise<JobEvent[]>,
    /** The lowest seq any socket of the job has been sent: pages wholly at or below it are not needed. */
    private readonly slowest: () => number,
  ) {}

  private drop(page: (typeof this.pages)[number]): void {
    const i = this.pages.indexOf(page)
    if (i >= 0) this.pages.splice(i, 1)
  }

  /** Drops one page other than `fresh`: a read nobody needs any more, else the highest read (Belady's choice). */
  private evict(fresh: (typeof this.pages)[number]): void {
    const low = this.slowest()
    const read = this.pages.filter((p) => p !== fresh && p.events !== undefined)
    const unneeded = read.find((p) => (p.events!.at(-1) as JobEvent).seq <= low)
    const highest = read.reduce<(typeof read)[number] | undefined>(
      (best, p) => (best === undefined || p.after > best.after ? p : best),
      undefined,
    )
    this.drop(unneeded ?? highest ?? (this.pages[0] as (typeof this.pages)[number]))
  }

  /** Events after `after` (a page read by another socket may start earlier; the caller skips what it has). */
  read(after: number): Promise<JobEvent[]> {
    for (const page of this.pages) {
      if (page.after === after) return page.read
      const events = page.events
      if (events?.length && page.after < after && (events.at(-1) as JobEvent).seq > after) return page.read
    }
    const page: (typeof this.pages)[number] = { after, read: this.load(after) }
    this.pages.push(page)
    if (this.pages.length > this.keep) this.evict(page)
    page.read.then(
      (events) => {
        if (events.length === this.size) page.events = events
        else this.drop(page)
      },
      () => this.drop(page),
    )
    return page.read
  }
}

/** A watched job: its recent events, its recent database pages and the cursors of the sockets watching it. */
interface WatchedJob {
  recent: RecentEvents
  pages: SharedPages
  cursors: Set<Cursor>
}

/** Where one socket is in one job's event feed. */
interface Cursor {
  readonly socket: RealtimeSocket
  readonly kind: JobKind
  readonly id: string
  /** `kind:id`, the key of its watched job. */
  readonly key: string
  readonly feed: WatchedJob
  /** Highest seq handed to the socket (the high-water mark: nothing at or below it is sent again). */
  sent: number
  /** The last database page read, sent from `pageAt` on. */
  page: JobEvent[]
  pageAt: number
  /** The database may hold events after `sent` that memory does not (at join; after a full page). */
  behind: boolean
  /** A pump is running (maybe awaiting the database); a publish meanwhile only lands in the feed. */
  pumping: boolean
  /** Paused until engine.io's 'drain'. */
  waiting: boolean
  closed: boolean
  /** The join's reply, sent once: when the cursor first has nothing left to send, or when its first read fails. */
  reply: ((ack: JobJoinAck) => void) | null
}

/** Packets engine.io holds for a socket that it has not yet handed to the transport. */
interface QueueGauge {
  queued: number
}

/**
 * Counts a socket's queued packets from engine.io's public events: each packet is created into its
 * write buffer ('packetCreate') and the whole buffer goes to the transport at once ('flush').
 */
function queueGauge(socket: RealtimeSocket): QueueGauge {
  const data = socket.data as { jobQueue?: QueueGauge }
  if (data.jobQueue) return data.jobQueue
  const gauge: QueueGauge = { queued: 0 }
  socket.conn.on('packetCreate', () => {
    gauge.queued++
  })
  socket.conn.on('flush', () => {
    gauge.queued = 0
  })
  data.jobQueue = gauge
  return gauge
}

function cursorsOf(socket: RealtimeSocket): Map<string, Cursor> {
  const data = socket.data as { jobCursors?: Map<string, Cursor> }
  data.jobCursors ??= new Map()
  return data.jobCursors
}

/** Jobs' event streams to the sockets that joined them. */
export interface JobEventPublisher {
  /** Sends a stored event to the job's sockets; call it once per event, in seq order per job. */
  publish(kind: JobKind, id: string, event: JobEvent): void
  /** Sockets joined to the job now. */
  watchers(kind: JobKind, id: string): number
}

/** Options of {@link attachJobSocket}. */
export interface JobSocketOptions {
  /** Events read from the database per backlog query; a cursor holds at most one page. Default 256. */
  backlogPage?: number
  /** A watched job's most recent events kept in memory for all its sockets (~2 kB each for an iteration report). Default 4,096. */
  recentEvents?: number
  /**
   * engine.io packets a socket may have waiting for its transport before its cursor pauses until
   * 'drain'. Default 128. Without a bound, socket.io queued every event for every slow client:
   * 50 clients × 20,000 events of 2.1 kB grew the server past 3.7 GB.
   */
  maxQueuedPackets?: number
}

/**
 * Wires `job:join` { kind, id, lastSeq } and `job:leave` { kind, id }, and returns `publish`,
 * which the job feed calls once per stored event (in seq order per job).
 *
 * Each joined socket has a cursor, its high-water mark in the job's feed, and a pump sends from
 * the cursor on: from the last database page, then from the job's recent events in memory (one
 * ring per watched job, shared by its sockets), else from the database again. The pump pauses
 * while the socket has `maxQueuedPackets` packets waiting and resumes on engine.io's 'drain', so a slow client costs the server a bounded queue, not one copy of every event; it
 * catches up from memory or the database at its own pace.
 *
 * No gap, no duplicate: the cursor joins the feed before its first read, so an event is either in
 * that read (committed before it) or published after the join and found in memory; an event the
 * ring no longer holds is read from the database; the high-water mark drops anything already sent.
 */
export function attachJobSocket(
  io: RealtimeServer,
  readBacklog: (kind: JobKind, id: string, after: number, limit: number) => Promise<JobEvent[]>,
  log: FastifyBaseLogger,
  options: JobSocketOptions = {},
): JobEventPublisher {
  const { backlogPage, recentEvents, maxQueuedPackets } = { ...DEFAULTS, ...options }
  const feeds = new Map<string, WatchedJob>()

  function close(c: Cursor): void {
    c.closed = true
    c.feed.cursors.delete(c)
    if (c.feed.cursors.size === 0 && feeds.get(c.key) === c.feed) feeds.delete(c.key)
    if (cursorsOf(c.socket).get(c.key) === c) cursorsOf(c.socket).delete(c.key)
  }

  /** The next event for `c` held in memory (its page, then the ring), or undefined. */
  function nextInMemory(c: Cursor): JobEvent | undefined {
    while (c.pageAt < c.page.length) {
      const event = c.page[c.pageAt++] as JobEvent
      if (event.seq > c.sent) return event
    }
    return c.feed.recent.get(c.sent + 1)
  }

  /** No pump running or paused, nothing left in its page, its join answered, room in its queue. */
  function isIdle(c: Cursor): boolean {
    return (
      !c.pumping &&
      !c.waiting &&
      !c.closed &&
      c.reply === null &&
      c.pageAt >= c.page.length &&
      queueGauge(c.socket).queued < maxQueuedPackets
    )
  }

  function send(c: Cursor, event: JobEvent): void {
    c.sent = event.seq
    const payload: JobSocketEvent = { kind: c.kind, id: c.id, ...event }
    c.socket.emit(socketEvents.jobEvent, payload)
  }

  async function pump(c: Cursor): Promise<void> {
    if (c.pumping || c.waiting || c.closed) return
    c.pumping = true
    const gauge = queueGauge(c.socket)
    try {
      for (;;) {
        if (c.closed) return
        if (gauge.queued >= maxQueuedPackets) {
          c.waiting = true
          c.socket.conn.once('drain', () => {
            c.waiting = false
            void pump(c)
          })
          return
        }
        const next = nextInMemory(c)
        if (next !== undefined) {
          send(c, next)
          continue
        }
        if (c.behind || c.sent < c.feed.recent.newest) {
          c.page = await c.feed.pages.read(c.sent)
          c.pageAt = 0
          c.behind = c.page.length === backlogPage
          if (c.page.length > 0) continue
        }
        // Everything stored or published so far is queued: the join is answered; publish wakes the pump.
        c.reply?.({ ok: true, lastSeq: c.sent })
        c.reply = null
        return
      }
    } catch (err) {
      close(c)
      // A coded API error (an unknown job) is the client's to read when it joins; any other reason goes
      // to the log only (a failed query names its SQL).
      const coded = err instanceof ApiError
      if (!coded || !c.reply)
        log.warn({ err, kind: c.kind, id: c.id }, 'job events could not be read for a socket')
      if (c.reply) {
        c.reply(
          coded
            ? { ok: false, code: err.code, message: err.message }
            : {
                ok: false,
                code: 'JOB_JOIN_FAILED',
                message: `the events of ${c.kind} ${c.id} could not be read`,
              },
        )
        c.reply = null
      } else {
        // Closing the connection (not just the socket.io socket) makes the client reconnect and rejoin.
        c.socket.disconnect(true)
      }
    } finally {
      c.pumping = false
    }
  }

  io.on('connection', (socket) => {
    // Payloads are typed by the contract but come from the network: parsed, and the ack may be absent.
    socket.on(socketEvents.jobJoin, (payload: unknown, ack?: (reply: JobJoinAck) => void) => {
      const reply = typeof ack === 'function' ? ack : () => undefined
      const parsed = clientEventSchemas[socketEvents.jobJoin].safeParse(payload)
      if (!parsed.success) {
        reply({
          ok: false,
          code: 'BAD_JOIN',
          message:
            'expected { kind: run | evaluation | study, id: string without NUL, lastSeq: integer ≥ 0 }',
        })
        return
      }
      const { kind, id, lastSeq } = parsed.data
      const key = `${kind}:${id}`
      const previous = cursorsOf(socket).get(key)
      if (previous) close(previous)
      let feed = feeds.get(key)
      if (!feed) {
        const cursors = new Set<Cursor>()
        feed = {
          recent: new RecentEvents(recentEvents),
          pages: new SharedPages(
            SHARED_PAGES,
            backlogPage,
            (after) => readBacklog(kind, id, after, backlogPage),
            () => Math.min(...[...cursors].map((c) => c.sent)),
          ),
          cursors,
        }
        feeds.set(key, feed)
      }
      const c: Cursor = {
        socket,
        kind,
        id,
        key,
        feed,
        sent: lastSeq,
        page: [],
        pageAt: 0,
        behind: true,
        pumping: false,
        waiting: false,
        closed: false,
        reply,
      }
      feed.cursors.add(c)
      cursorsOf(socket).set(key, c)
      void pump(c)
    })
    socket.on(socketEvents.jobLeave, (payload: unknown) => {
      const parsed = clientEventSchemas[socketEvents.jobLeave].safeParse(payload)
      if (!parsed.success) return
      const c = cursorsOf(socket).get(`${parsed.data.kind}:${parsed.data.id}`)
      if (c) close(c)
    })
    socket.on('disconnect', () => {
      for (const c of [...cursorsOf(socket).values()]) close(c)
    })
  })

  return {
    publish(kind, id, event) {
      const feed = feeds.get(`${kind}:${id}`)
      if (!feed) return
      feed.recent.add(event)
      // Sockets that have everything before this event get it in one broadcast (encoded once).
      const ready: Cursor[] = []
      for (const c of feed.cursors) {
        if (c.sent === event.seq - 1 && isIdle(c)) ready.push(c)
        else void pump(c)
      }
      if (ready.length === 0) return
      for (const c of ready) c.sent = event.seq
      io.to(ready.map((c) => c.socket.id)).emit(socketEvents.jobEvent, {
        kind,
        id,
        ...event,
      } satisfies JobSocketEvent)
    },
    watchers(kind, id) {
      return feeds.get(`${kind}:${id}`)?.cursors.size ?? 0
    },
  }
}
