import { type JobJoin, type JobJoinAck, type JobKind, type JobLeave, JobSocketEvent } from '@codebook/shared'
import type { SocketStatus } from './socket.ts'

/**
 * A job to follow: its id and, when the caller holds its record, the record's `lastEventSeq` (the
 * feed then replays only what happened since the record was read).
 */
export interface FollowedJob {
  id: string
  lastEventSeq?: number | undefined
}

/** What a {@link JobFeed} sends: `job:join` (with its acknowledgement) and `job:leave`. */
export interface JobFeedSender {
  join(join: JobJoin, ack: (reply: JobJoinAck) => void): void
  leave(leave: JobLeave): void
}

/**
 * Which jobs of one kind a socket follows, and how far. Each followed id is joined with the last
 * seq applied, so the server replays only what is missing; every id is rejoined on each connect
 * (a new connection has joined nothing); ids no longer followed are left. Each `job:event` of a
 * joined id is handed to `apply` once, in seq order. Plain state, no React: `useJobFeed` wires it
 * to a socket.
 */
export class JobFeed {
  private followed = new Set<string>()
  /** Highest seq applied per id; kept after a leave so a later rejoin replays only what was missed. */
  private readonly lastSeqs = new Map<string, number>()
  /** Ids joined on the current connection → their join's token (an older join's late ack is ignored). */
  private readonly joined = new Map<string, number>()
  /** Joined ids whose join the server refused: their events will not come. */
  private readonly refused = new Set<string>()
  private connection: SocketStatus = 'connecting'
  private joinCount = 0
  private reported: SocketStatus | null = null

  constructor(
    private readonly kind: JobKind,
    private readonly sender: JobFeedSender,
    private readonly apply: (event: JobSocketEvent) => void,
    private readonly onStatus: (status: SocketStatus) => void,
  ) {}

  /**
   * `live` while connected with every join accepted; a refused join counts as `offline` (that job
   * has no live events, so the page should poll as if the socket were down).
   */
  get status(): SocketStatus {
    return this.connection === 'live' && this.refused.size > 0 ? 'offline' : this.connection
  }

  /** Highest seq applied for `id` (0: none). */
  lastSeq(id: string): number {
    return this.lastSeqs.get(id) ?? 0
  }

  /**
   * Follows exactly `jobs` from now on: joins the new ones (once connected), leaves the dropped
   * ones. A job's `lastEventSeq` moves its last seq forward: what the record already holds is
   * neither replayed nor applied again.
   */
  follow(jobs: Iterable<FollowedJob>): void {
    const next = new Set<string>()
    for (const job of jobs) {
      next.add(job.id)
      if (job.lastEventSeq !== undefined && job.lastEventSeq > this.lastSeq(job.id))
        this.lastSeqs.set(job.id, job.lastEventSeq)
    }
    for (const id of this.followed) {
      if (next.has(id)) continue
      if (this.joined.delete(id)) this.sender.leave({ kind: this.kind, id })
      this.refused.delete(id)
    }
    this.followed = next
    for (const id of next) if (!this.joined.has(id)) this.join(id)
    this.report()
  }

  /** The socket (re)connected: join every followed id from its last seq. */
  connected(): void {
    this.connection = 'live'
    this.joined.clear()
    this.refused.clear()
    for (const id of this.followed) this.join(id)
    this.report()
  }

  /** The socket dropped, or could not connect: the server forgot our joins. */
  disconnected(): void {
    this.connection = 'offline'
    this.joined.clear()
    this.refused.clear()
    this.report()
  }

  /** One `job:event` payload from the socket: applied if it is of a joined id and newer than its last seq. */
  receive(payload: unknown): void {
    const parsed = JobSocketEvent.safeParse(payload)
    if (!parsed.success) return
    const event = parsed.data
    // A left id's events still in flight are dropped: a rejoin replays them from its last seq.
    if (event.kind !== this.kind || !this.joined.has(event.id)) return
    // Leaving and rejoining on one connection can bring an event both in flight and replayed.
    if (event.seq <= this.lastSeq(event.id)) return
    this.lastSeqs.set(event.id, event.seq)
    this.apply(event)
  }

  private join(id: string): void {
    if (this.connection !== 'live') return
    const token = ++this.joinCount
    this.joined.set(id, token)
    this.sender.join({ kind: this.kind, id, lastSeq: this.lastSeq(id) }, (reply) => {
      if (this.joined.get(id) !== token) return
      if (reply.ok) this.refused.delete(id)
      else this.refused.add(id)
      this.report()
    })
  }

  private report(): void {
    const status = this.status
    if (status === this.reported) return
    this.reported = status
    this.onStatus(status)
  }
}
