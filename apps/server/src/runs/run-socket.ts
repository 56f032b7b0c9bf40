import {
  clientEventSchemas,
  type RunEvent,
  type RunJoinAck,
  type RunSocketEvent,
  socketEvents,
} from '@codebook/shared'
import type { RealtimeServer, RealtimeSocket } from '../realtime/realtime-plugin.ts'

/** Defaults of {@link RunSocketOptions}. */
const DEFAULTS = { backlogPage: 256, recentEvents: 4096, maxQueuedPackets: 128 }
/** Database pages a watched run keeps for its sockets (with 256-event pages of 2 kB events, ~4 MB). */
const SHARED_PAGES = 8

/** A run's most recent events by seq (a ring), shared by every socket watching the run. */
class RecentEvents {
  private readonly ring: Array<RunEvent | undefined>
  private count = 0
  /** Highest seq published (0: none yet). */
  newest = 0

  constructor(private readonly capacity: number) {
    this.ring = new Array(capacity)
  }

  add(event: RunEvent): void {
    // Events arrive in seq order; one out of order is left to the database.
    if (event.seq <= this.newest) return
    this.count = event.seq === this.newest + 1 ? Math.min(this.count + 1, this.capacity) : 1
    this.newest = event.seq
    this.ring[event.seq % this.capacity] = event
  }

  get(seq: number): RunEvent | undefined {
    return seq <= this.newest && seq > this.newest - this.count ? this.ring[seq % this.capacity] : undefined
  }
}

/**
 * A run's recent database pages, shared by its sockets: sockets that fell behind together (a
 * burst of events outran them all) read and parse each page once, not once per socket. A read is
 * shared while in flight; once done it is kept only if full (a short page is the log's end at the
 * time, soon stale). At most `keep` pages are held; beyond, a page no socket still needs goes
 * first, else the one needed furthest in the future (the highest), so a socket that fell further
 * behind than the others still finds the pages just ahead of it.
 */
class SharedPages {
  private readonly pages: Array<{ after: number; read: Promise<RunEvent[]>; events?: RunEvent[] }> = []

  constructor(
    private readonly keep: number,
    private readonly size: number,
    private readonly load: (after: number) => Promise<RunEvent[]>,
    /** The lowest seq any socket of the run has been sent: pages wholly at or below it are not needed. */
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
    const unneeded = read.find((p) => (p.events!.at(-1) as RunEvent).seq <= low)
    const highest = read.reduce<(typeof read)[number] | undefined>(
      (best, p) => (best === undefined || p.after > best.after ? p : best),
      undefined,
    )
    this.drop(unneeded ?? highest ?? (this.pages[0] as (typeof this.pages)[number]))
  }

  /** Events after `after` (a page read by another socket may start earlier; the caller skips what it has). */
  read(after: number): Promise<RunEvent[]> {
    for (const page of this.pages) {
      if (page.after === after) return page.read
      const events = page.events
      if (events?.length && page.after < after && (events.at(-1) as RunEvent).seq > after) return page.read
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

/** A watched run: its recent events, its recent database pages and the cursors of the sockets watching it. */
interface RunFeed {
  recent: RecentEvents
  pages: SharedPages
  cursors: Set<Cursor>
}

/** Where one socket is in one run's event log. */
interface Cursor {
  readonly socket: RealtimeSocket
  readonly runId: string
  readonly feed: RunFeed
  /** Highest seq handed to the socket (the high-water mark: nothing at or below it is sent again). */
  sent: number
  /** The last database page read, sent from `pageAt` on. */
  page: RunEvent[]
  pageAt: number
  /** The database may hold events after `sent` that memory does not (at join; after a full page). */
  behind: boolean
  /** A pump is running (maybe awaiting the database); a publish meanwhile only lands in the feed. */
  pumping: boolean
  /** Paused until engine.io's 'drain'. */
  waiting: boolean
  closed: boolean
  /** The join's reply, sent once: when the cursor first has nothing left to send, or when its first read fails. */
  reply: ((ack: RunJoinAck) => void) | null
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
  const data = socket.data as { runQueue?: QueueGauge }
  if (data.runQueue) return data.runQueue
  const gauge: QueueGauge = { queued: 0 }
  socket.conn.on('packetCreate', () => {
    gauge.queued++
  })
  socket.conn.on('flush', () => {
    gauge.queued = 0
  })
  data.runQueue = gauge
  return gauge
}

function cursorsOf(socket: RealtimeSocket): Map<string, Cursor> {
  const data = socket.data as { runCursors?: Map<string, Cursor> }
  data.runCursors ??= new Map()
  return data.runCursors
}

/** A run's event stream to the sockets that joined it. */
export interface RunEventPublisher {
  /** Sends a stored event to the run's sockets; call it once per event, in seq order per run. */
  publish(runId: string, event: RunEvent): void
  /** Sockets joined to the run now. */
  watchers(runId: string): number
}

/** Options of {@link attachRunSocket}. */
export interface RunSocketOptions {
  /** Events read from the database per backlog query; a cursor holds at most one page. Default 256. */
  backlogPage?: number
  /** A watched run's most recent events kept in memory for all its sockets (~2 kB each for an iteration report). Default 4,096. */
  recentEvents?: number
  /**
   * engine.io packets a socket may have waiting for its transport before its cursor pauses until
   * 'drain'. Default 128. Without a bound, socket.io queued every event for every slow client:
   * 50 clients × 20,000 events of 2.1 kB grew the server past 3.7 GB.
   */
  maxQueuedPackets?: number
  /** A backlog read failed after the join was answered (the socket is then disconnected and rejoins). */
  onReadError?: (runId: string, err: unknown) => void
}

/**
 * Wires `run:join` { runId, lastSeq } and `run:leave` { runId }, and returns `publish`, which the
 * run service calls once per stored event (in seq order per run).
 *
 * Each joined socket has a cursor, its high-water mark in the run's log, and a pump sends from
 * the cursor on: from the last database page, then from the run's recent events in memory (one
 * ring per watched run, shared by its sockets), else from the database again. The pump pauses
 * while the socket has `maxQueuedPackets` packets waiting and resumes on engine.io's 'drain', so a slow client costs the server a bounded queue, not one copy of every event; it
 * catches up from memory or the database at its own pace.
 *
 * No gap, no duplicate: the cursor joins the feed before its first read, so an event is either in
 * that read (committed before it) or published after the join and found in memory; an event the
 * ring no longer holds is read from the database; the high-water mark drops anything already sent.
 */
export function attachRunSocket(
  io: RealtimeServer,
  readBacklog: (runId: string, after: number, limit: number) => Promise<RunEvent[]>,
  options: RunSocketOptions = {},
): RunEventPublisher {
  const { backlogPage, recentEvents, maxQueuedPackets } = { ...DEFAULTS, ...options }
  const feeds = new Map<string, RunFeed>()

  function close(c: Cursor): void {
    c.closed = true
    c.feed.cursors.delete(c)
    if (c.feed.cursors.size === 0 && feeds.get(c.runId) === c.feed) feeds.delete(c.runId)
    if (cursorsOf(c.socket).get(c.runId) === c) cursorsOf(c.socket).delete(c.runId)
  }

  /** The next event for `c` held in memory (its page, then the ring), or undefined. */
  function nextInMemory(c: Cursor): RunEvent | undefined {
    while (c.pageAt < c.page.length) {
      const event = c.page[c.pageAt++] as RunEvent
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

  function send(c: Cursor, event: RunEvent): void {
    c.sent = event.seq
    const payload: RunSocketEvent = { runId: c.runId, ...event }
    c.socket.emit(socketEvents.runEvent, payload)
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
      if (c.reply) {
        const code = (err as { code?: string }).code ?? 'RUN_JOIN_FAILED'
        c.reply({ ok: false, code, message: err instanceof Error ? err.message : String(err) })
        c.reply = null
      } else {
        options.onReadError?.(c.runId, err)
        // Closing the connection (not just the socket.io socket) makes the client reconnect and rejoin.
        c.socket.disconnect(true)
      }
    } finally {
      c.pumping = false
    }
  }

  io.on('connection', (socket) => {
    // Payloads are typed by the contract but come from the network: parsed, and the ack may be absent.
    socket.on(socketEvents.runJoin, (payload: unknown, ack?: (reply: RunJoinAck) => void) => {
      const reply = typeof ack === 'function' ? ack : () => undefined
      const parsed = clientEventSchemas[socketEvents.runJoin].safeParse(payload)
      if (!parsed.success) {
        reply({ ok: false, code: 'BAD_JOIN', message: 'expected { runId: string, lastSeq: integer ≥ 0 }' })
        return
      }
      const { runId, lastSeq } = parsed.data
      const previous = cursorsOf(socket).get(runId)
      if (previous) close(previous)
      let feed = feeds.get(runId)
      if (!feed) {
        const cursors = new Set<Cursor>()
        feed = {
          recent: new RecentEvents(recentEvents),
          pages: new SharedPages(
            SHARED_PAGES,
            backlogPage,
            (after) => readBacklog(runId, after, backlogPage),
            () => Math.min(...[...cursors].map((c) => c.sent)),
          ),
          cursors,
        }
        feeds.set(runId, feed)
      }
      const c: Cursor = {
        socket,
        runId,
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
      cursorsOf(socket).set(runId, c)
      void pump(c)
    })
    socket.on(socketEvents.runLeave, (payload: unknown) => {
      const parsed = clientEventSchemas[socketEvents.runLeave].safeParse(payload)
      if (!parsed.success) return
      const c = cursorsOf(socket).get(parsed.data.runId)
      if (c) close(c)
    })
    socket.on('disconnect', () => {
      for (const c of [...cursorsOf(socket).values()]) close(c)
    })
  })

  return {
    publish(runId, event) {
      const feed = feeds.get(runId)
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
      io.to(ready.map((c) => c.socket.id)).emit(socketEvents.runEvent, {
        runId,
        ...event,
      } satisfies RunSocketEvent)
    },
    watchers(runId) {
      return feeds.get(runId)?.cursors.size ?? 0
    },
  }
}
