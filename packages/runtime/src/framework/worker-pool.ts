import type { ChildProcess } from 'node:child_process'
import { randomBytes, randomInt } from 'node:crypto'
import net from 'node:net'
import { CodebookError } from '../errors.ts'
import { DEFAULT_CHUNK_BYTES, type PeerAddress } from '../transport/data-plane.ts'
import type { Application } from './application.ts'
import { ControlChannel } from './control-channel.ts'
import { EventMessage, parseControl, RegisterMessage, ReplyMessage, type Request } from './protocol.ts'
import { JOIN_TOKEN_ENV, type SpawnWorker } from './spawn.ts'

/** Options of {@link WorkerPool.start}. */
export interface WorkerPoolOptions {
  /** Number of workers p. */
  workers: number
  /** Starts local workers; null waits for p workers to join with `codebook worker --join`. */
  spawn: SpawnWorker | null
  /** Rack of each rank (worker i ↔ i-th topology node); missing ranks use {@link rackOfHost}, the rack a worker reports, else one shared rack. */
  racks?: readonly string[]
  /** Rack of a worker by the host name it reports (a topology's node names): the real placement of joined workers. */
  rackOfHost?: (hostName: string) => string | undefined
  /**
   * The secret a joining worker must present as `--token` (random when absent; read it from
   * {@link WorkerPool.secret}). Any other token is refused with `JOIN_REFUSED`.
   */
  secret?: string
  /** Without `spawn`: asks the launcher for a new worker to replace lost `rank` (e.g. another Slurm job); the pool then awaits its join. */
  requestReplacement?: (rank: number) => Promise<void> | void
  /** Without `spawn`: called as workers join, with how many have and how many are awaited. */
  onJoined?: (joined: number, expected: number) => void
  /** Stops waiting for workers to register (`POOL_ABORTED`). */
  signal?: AbortSignal
  chunkBytes?: number
  /** Control listener host and port (port 0: any). */
  host?: string
  port?: number
  /** How long to wait for all workers to register. */
  registerTimeoutMs?: number
  /** Called once the control listener is bound: the address and secret to give `codebook worker --join ADDRESS --token SECRET`. */
  onListening?: (address: PeerAddress, secret: string) => void
}

interface WorkerRecord {
  rank: number
  channel: ControlChannel
  child: ChildProcess | null
  addr: PeerAddress
  reportedRack: string | null
  hostName: string
  pid: number
  alive: boolean
  pending: Map<number, PendingRequest>
}

interface PendingRequest {
  resolve: (m: WorkerReply) => void
  reject: (e: Error) => void
  onEvent?: (body: unknown) => void
}

/** A worker's successful answer: the handler's result and its binary attachments. */
export interface WorkerReply {
  result: unknown
  blobs: Uint8Array[]
}

/** A worker's control channel closed: the process died or the network dropped it. */
export class WorkerLostError extends CodebookError {
  constructor(readonly rank: number) {
    super('WORKER_LOST', `worker ${rank} was lost (process exited or connection closed)`)
  }
}

/** A worker presented no token, or not the run's secret: the pool refuses it. */
export class JoinRefusedError extends CodebookError {
  constructor(message: string) {
    super('JOIN_REFUSED', message)
  }
}

/** A worker answered a request with an error. */
export class WorkerRequestError extends CodebookError {
  constructor(
    readonly rank: number,
    code: string,
    message: string,
    /** Ranks the error is about (e.g. workers a broadcast could not reach). */
    readonly ranks: number[] = [],
  ) {
    super(code, `worker ${rank}: ${message}`)
  }
}

/**
 * The driver's view of its p workers: a TCP control listener workers register with (spawned
 * locally or joined from elsewhere), request/reply messaging, op ids for collectives, and
 * replacement of a lost worker by a fresh process that takes over its rank.
 */
export class WorkerPool {
  private readonly workers: WorkerRecord[] = []
  private readonly waitingTokens = new Map<string, (ch: ControlChannel, hello: RegisterMessage) => void>()
  /** Workers that joined with the secret and await a rank. */
  private readonly joined: { channel: ControlChannel; hello: RegisterMessage }[] = []
  private wakeJoinWaiter: () => void = () => {}
  private readonly lostListeners: ((rank: number) => void)[] = []
  private nextId = 1
  private nextOp = 1
  /** Control-channel bytes of replaced workers' connections (see {@link controlBytes}). */
  private readonly retiredControlBytes = { sent: 0, received: 0 }
  private generation = 0
  racks: string[] = []
  /** Host name each worker reported (`os.hostname()` or its `--host-name`), by rank. */
  hosts: string[] = []
  /** The token a joining worker must present (`codebook worker --join HOST:PORT --token SECRET`). */
  readonly secret: string
  /** This job's data-plane session: workers refuse connections meant for another job. */
  readonly session = randomInt(1, 0xffffffff)
  chunkBytes: number
  /** Control address workers join. */
  address!: PeerAddress

  private constructor(
    private readonly server: net.Server,
    private readonly opts: WorkerPoolOptions,
  ) {
    this.chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES
    this.secret = opts.secret ?? randomBytes(16).toString('hex')
  }

  /** Opens the control listener, starts (or awaits) p workers and sends each its rank and peers. */
  static async start(opts: WorkerPoolOptions): Promise<WorkerPool> {
    if (!Number.isInteger(opts.workers) || opts.workers < 1)
      throw new CodebookError('POOL_SIZE', `worker count must be a positive integer, got ${opts.workers}`)
    const server = net.createServer()
    const pool = new WorkerPool(server, opts)
    const host = opts.host ?? '127.0.0.1'
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(opts.port ?? 0, host, () => resolve())
    })
    pool.address = { host, port: (server.address() as net.AddressInfo).port }
    opts.onListening?.(pool.address, pool.secret)
    server.on('connection', (socket) => {
      const channel = new ControlChannel(socket)
      let registered = false
      channel.onMessage((m) => {
        if (registered) return
        const hello = RegisterMessage.safeParse(m.body)
        // Anything but a well-formed register from a stranger on the control port: drop it.
        if (!hello.success) return channel.close()
        registered = true
        pool.admit(channel, hello.data)
      })
    })
    const p = opts.workers
    const timeout = opts.registerTimeoutMs ?? 60_000
    try {
      if (opts.spawn) {
        await Promise.all(Array.from({ length: p }, (_, rank) => pool.spawnFor(rank, timeout)))
      } else {
        for (let rank = 0; rank < p; rank++) {
          const { channel, hello } = await pool.nextJoined(timeout, `${rank} of ${p} workers joined`)
          pool.adopt(rank, channel, hello, null)
          opts.onJoined?.(rank + 1, p)
        }
      }
      pool.racks = Array.from({ length: p }, (_, r) => opts.racks?.[r] ?? pool.placedRack(pool.workers[r]!))
      const peers = pool.workers.map((w) => w.addr)
      await Promise.all(
        pool.workers.map((w) =>
          pool.request(w.rank, {
            type: 'setup',
            rank: w.rank,
            peers,
            racks: pool.racks,
            chunkBytes: pool.chunkBytes,
            session: pool.session,
          }),
        ),
      )
    } catch (err) {
      await pool.close()
      throw err
    }
    return pool
  }

  /** A registering worker: the spawned one its token names, one presenting the secret, or refused. */
  private admit(channel: ControlChannel, hello: RegisterMessage): void {
    const token = hello.token
    const waiter = token ? this.waitingTokens.get(token) : undefined
    if (waiter) {
      this.waitingTokens.delete(token!)
      waiter(channel, hello)
    } else if (token !== null && token === this.secret) {
      this.joined.push({ channel, hello })
      this.wakeJoinWaiter()
    } else {
      const err = new JoinRefusedError(
        token === null
          ? "no token: start the worker with the run's secret in $CODEBOOK_JOIN_TOKEN (or --token)"
          : "wrong token: it is not this run's secret",
      )
      channel.send({ type: 'refused', id: 0, code: err.code, message: err.message })
      channel.socket.end()
    }
  }

  /** The next worker that joined with the secret (`POOL_REGISTER_TIMEOUT` after `timeoutMs`). */
  private async nextJoined(
    timeoutMs: number,
    progress: string,
  ): Promise<{ channel: ControlChannel; hello: RegisterMessage }> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      // A worker that joined and went away before it got a rank is skipped.
      const next = this.joined.shift()
      if (next && !next.channel.closed) return next
      if (next) continue
      if (this.opts.signal?.aborted)
        throw new CodebookError('POOL_ABORTED', `stopped waiting for workers (${progress})`)
      if (Date.now() > deadline)
        throw new CodebookError('POOL_REGISTER_TIMEOUT', `timed out after ${timeoutMs} ms: ${progress}`)
      await new Promise<void>((r) => {
        const timer = setTimeout(r, 200)
        this.wakeJoinWaiter = () => {
          clearTimeout(timer)
          r()
        }
      })
    }
  }

  /** A worker's rack: the topology's rack for its host name, else the rack it reported, else one shared rack. */
  private placedRack(w: WorkerRecord): string {
    return this.opts.rackOfHost?.(w.hostName) ?? w.reportedRack ?? 'rack-0'
  }

  /** Process id worker `rank` reported (on its own host). */
  pid(rank: number): number | undefined {
    return this.workers[rank]?.pid
  }

  /** Number of workers p. */
  get size(): number {
    return this.opts.workers
  }

  /** Process of a locally spawned worker (null for joined ones). */
  child(rank: number): ChildProcess | null {
    return this.workers[rank]?.child ?? null
  }

  /** Whether worker `rank` is connected. */
  alive(rank: number): boolean {
    return this.workers[rank]?.alive ?? false
  }

  /** Registers a listener called with the rank of every worker that is lost; returns its remover. */
  onWorkerLost(listener: (rank: number) => void): () => void {
    this.lostListeners.push(listener)
    return () => {
      const i = this.lostListeners.indexOf(listener)
      if (i >= 0) this.lostListeners.splice(i, 1)
    }
  }

  /** A fresh collective op id: every participant must use the same id for one collective call. */
  nextOpId(): number {
    return this.nextOp++
  }

  private spawnFor(rank: number, timeoutMs: number): Promise<void> {
    const spawn = this.opts.spawn
    if (!spawn)
      throw new CodebookError(
        'POOL_NO_SPAWN',
        `cannot start a worker for rank ${rank}: this pool does not spawn`,
      )
    // Unguessable, so a stranger on the control port cannot take a spawned worker's rank.
    const token = `r${rank}-g${this.generation++}-${randomBytes(8).toString('hex')}`
    // In the environment, not on the command line: see SpawnWorker.
    const child = spawn(['--join', `${this.address.host}:${this.address.port}`], rank, {
      [JOIN_TOKEN_ENV]: token,
    })
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waitingTokens.delete(token)
        child.kill('SIGKILL')
        reject(
          new CodebookError(
            'POOL_REGISTER_TIMEOUT',
            `worker for rank ${rank} did not register within ${timeoutMs} ms`,
          ),
        )
      }, timeoutMs)
      child.once('exit', (code, signal) => {
        if (!this.waitingTokens.has(token)) return
        clearTimeout(timer)
        this.waitingTokens.delete(token)
        reject(
          new CodebookError(
            'WORKER_START_FAILED',
            `worker for rank ${rank} exited before registering (${signal ?? code})`,
          ),
        )
      })
      this.waitingTokens.set(token, (channel, hello) => {
        clearTimeout(timer)
        this.adopt(rank, channel, hello, child)
        resolve()
      })
    })
  }

  private adopt(
    rank: number,
    channel: ControlChannel,
    hello: RegisterMessage,
    child: ChildProcess | null,
  ): void {
    const w: WorkerRecord = {
      rank,
      channel,
      child,
      addr: { host: reachableHost(hello.host, channel), port: hello.port },
      reportedRack: hello.rack,
      hostName: hello.hostName ?? channel.socket.remoteAddress ?? 'unknown',
      pid: hello.pid,
      alive: true,
      pending: new Map(),
    }
    const old = this.workers[rank]
    if (old) {
      this.retiredControlBytes.sent += old.channel.socket.bytesWritten
      this.retiredControlBytes.received += old.channel.socket.bytesRead
    }
    this.workers[rank] = w
    this.hosts[rank] = w.hostName
    channel.onMessage((m) => {
      if (m.body.type === 'event') {
        const event = EventMessage.safeParse(m.body)
        if (event.success) w.pending.get(event.data.id)?.onEvent?.(event.data.body)
        return
      }
      const reply = ReplyMessage.safeParse(m.body)
      if (!reply.success) {
        // A worker that breaks the protocol cannot be trusted with the rest of the job.
        const err = new WorkerRequestError(rank, 'CONTROL_BAD_MESSAGE', 'sent a malformed reply')
        for (const p of w.pending.values()) p.reject(err)
        w.pending.clear()
        return
      }
      const r = reply.data
      const p = w.pending.get(r.id)
      if (!p) return
      w.pending.delete(r.id)
      if (r.ok) p.resolve({ result: r.result, blobs: m.blobs })
      else p.reject(new WorkerRequestError(rank, r.error.code, r.error.message, r.error.ranks))
    })
    channel.onClose(() => {
      if (this.workers[rank] !== w) return
      w.alive = false
      const err = new WorkerLostError(rank)
      for (const p of w.pending.values()) p.reject(err)
      w.pending.clear()
      for (const l of this.lostListeners) l(rank)
    })
  }

  /**
   * Sends a request to worker `rank` and resolves to its reply (rejects with the worker's coded
   * error or WORKER_LOST); `onEvent` receives the events the worker emits while serving it.
   */
  request(
    rank: number,
    body: Request,
    blobs: Uint8Array[] = [],
    onEvent?: (body: unknown) => void,
  ): Promise<WorkerReply> {
    const w = this.workers[rank]
    if (!w?.alive) return Promise.reject(new WorkerLostError(rank))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      w.pending.set(id, { resolve, reject, onEvent })
      w.channel.send({ ...body, id }, blobs)
    })
  }

  /**
   * Sends `message` to application `app` at worker `rank`, checked against the application's
   * schema first (a bad message is a coded CONTROL_BAD_MESSAGE here, before it leaves).
   */
  call<M extends { type: string }, S>(
    rank: number,
    app: Application<M, S>,
    message: M,
    blobs: Uint8Array[] = [],
    onEvent?: (body: unknown) => void,
  ): Promise<WorkerReply> {
    try {
      parseControl(app.messages, message, `${app.name} message`)
    } catch (err) {
      return Promise.reject(err)
    }
    return this.request(rank, { type: 'app', app: app.name, message }, blobs, onEvent)
  }

  /**
   * Bytes this driver has written to and read from its workers' control connections so far
   * (lost workers' connections included): what the driver's own sockets carry, data plane aside.
   */
  controlBytes(): { sent: number; received: number } {
    let sent = this.retiredControlBytes.sent
    let received = this.retiredControlBytes.received
    for (const w of this.workers) {
      if (!w) continue
      sent += w.channel.socket.bytesWritten
      received += w.channel.socket.bytesRead
    }
    return { sent, received }
  }

  /** A contiguous range of `count` fresh op ids; returns the first. */
  nextOpIds(count: number): number {
    const first = this.nextOp
    this.nextOp += count
    return first
  }

  /**
   * Replaces lost worker `rank` with a freshly spawned process (or, without `spawn`, the next
   * worker to join with the secret, after asking `requestReplacement` for one) that takes its
   * rank, then tells every live worker the new address.
   */
  async replace(rank: number): Promise<void> {
    const old = this.workers[rank]
    old?.child?.kill('SIGKILL')
    const timeout = this.opts.registerTimeoutMs ?? 60_000
    if (this.opts.spawn) await this.spawnFor(rank, timeout)
    else {
      await this.opts.requestReplacement?.(rank)
      const { channel, hello } = await this.nextJoined(timeout, `no worker joined to replace rank ${rank}`)
      this.adopt(rank, channel, hello, null)
      // A topology places the new worker by its host: its rack may differ from the lost one's.
      if (this.opts.racks?.[rank] === undefined) this.racks[rank] = this.placedRack(this.workers[rank]!)
    }
    const peers = this.workers.map((w) => w.addr)
    await this.request(rank, {
      type: 'setup',
      rank,
      peers,
      racks: this.racks,
      chunkBytes: this.chunkBytes,
      session: this.session,
    })
    await Promise.all(
      this.workers
        .filter((w) => w.alive && w.rank !== rank)
        .map((w) => this.request(w.rank, { type: 'peers', peers, racks: this.racks })),
    )
  }

  /** Sets the data-plane chunk size on every worker. */
  async setChunkBytes(chunkBytes: number): Promise<void> {
    this.chunkBytes = chunkBytes
    await Promise.all(this.workers.map((w) => this.request(w.rank, { type: 'chunk-bytes', chunkBytes })))
  }

  /** Shuts every worker down, waits briefly for spawned processes to exit, and closes the listener. */
  async close(): Promise<void> {
    await Promise.all(
      this.workers.map(async (w) => {
        if (!w) return
        const exited =
          w.child && w.child.exitCode === null && w.child.signalCode === null
            ? new Promise<void>((r) => w.child!.once('exit', () => r()))
            : Promise.resolve()
        if (w.alive) w.channel.send({ type: 'shutdown', id: 0 })
        const timer = setTimeout(() => w.child?.kill('SIGKILL'), 3000)
        await exited
        clearTimeout(timer)
        w.channel.close()
      }),
    )
    for (const j of this.joined.splice(0)) j.channel.close()
    await new Promise<void>((r) => this.server.close(() => r()))
  }
}

/** A worker listening on every interface (`--host 0.0.0.0`) is reached at the address it connected from. */
function reachableHost(reported: string, channel: ControlChannel): string {
  const any = reported === '' || reported === '0.0.0.0' || reported === '::'
  return any ? (channel.socket.remoteAddress ?? reported).replace(/^::ffff:/, '') : reported
}
