import net from 'node:net'
import { CodebookError } from '../errors.ts'
import { ByteCounters } from './byte-counters.ts'
import {
  decodeFrameHeader,
  encodeFrameHeader,
  FRAME_HEADER_BYTES,
  type FrameHeader,
  FrameStreamDecoder,
  FrameType,
} from './frame.ts'

/** Default chunk size: large enough that the 40-byte header and per-write cost vanish, small enough to pipeline a chain. */
export const DEFAULT_CHUNK_BYTES = 512 * 1024

/** Where a rank listens. */
export interface PeerAddress {
  host: string
  port: number
}

/** Options of a {@link DataPlane}. */
export interface DataPlaneOptions {
  rank: number
  chunkBytes?: number
  /** Connection attempts before a peer is declared unreachable. */
  connectAttempts?: number
  /** First retry delay; doubles per attempt up to 1 s. */
  connectBackoffMs?: number
  /** Rack of a rank, for intra/cross-rack byte accounting. Defaults to one shared rack. */
  rackOf?: (rank: number) => string
  /** Injected sleep: tests and callers pass the real timer, a simulator may pass its own. */
  sleep?: (ms: number) => Promise<void>
  /** Id shared by the nodes of one job (u32); a connection to a node of another job is refused. Default 0. */
  session?: number
  /** How long a new connection waits for the peer's welcome before the attempt counts as failed. */
  handshakeTimeoutMs?: number
}

/** One received chunk of a message: its header, and its bytes as a view of the message buffer. */
export interface RecvChunk {
  header: FrameHeader
  /** The chunk's bytes: `buffer[offset, offset + payloadBytes)`, stable (never reused). */
  data: Uint8Array
  /** The whole message buffer (totalBytes long) the chunks are being written into. */
  buffer: Uint8Array
}

interface InboxEntry {
  /** Destination of the message's bytes: the receiver's buffer if it was posted before data arrived, else allocated on the first header. */
  buffer: Uint8Array | null
  /** Headers of completed frames not yet consumed. */
  done: FrameHeader[]
  wake: (() => void) | null
  error: Error | null
}

/** A peer that could not be reached after all connection attempts. */
export class PeerUnreachableError extends CodebookError {
  constructor(
    readonly rank: number,
    message: string,
  ) {
    super('PEER_UNREACHABLE', message)
  }
}

/**
 * The data plane of one node: a TCP listener for incoming frames, one outgoing connection per
 * peer (opened lazily, with retry and exponential backoff), and an inbox keyed by
 * (sender, op, step) from which collectives read messages chunk by chunk.
 *
 * Socket choices: `setNoDelay(true)` because chunks are large and latency of the last small
 * chunk matters more than Nagle's coalescing; the stream high-water mark is raised to four chunks
 * so a whole chunk is handed to the kernel in one write. Node exposes no SO_SNDBUF/SO_RCVBUF for
 * TCP; Linux autotunes kernel buffers (net.ipv4.tcp_wmem/rmem), which is what we rely on.
 */
export class DataPlane {
  /** This node's rank (set at construction or by {@link DataPlane.configure} once the driver assigns it). */
  rank: number
  /** Chunk size of outgoing messages; may change between collectives (`--chunk-bytes`). */
  chunkBytes: number
  counters: ByteCounters
  private readonly attempts: number
  private readonly backoffMs: number
  private readonly sleep: (ms: number) => Promise<void>
  private server: net.Server | null = null
  private peers: PeerAddress[] = []
  private readonly outgoing = new Map<number, Promise<net.Socket>>()
  private readonly connected = new Map<number, net.Socket>()
  private readonly incoming = new Set<net.Socket>()
  private readonly inbox = new Map<string, InboxEntry>()
  private readonly abortedOps = new Map<number, Error>()
  private closed = false
  private session: number
  private readonly handshakeTimeoutMs: number

  constructor(opts: DataPlaneOptions) {
    this.rank = opts.rank
    this.chunkBytes = opts.chunkBytes ?? DEFAULT_CHUNK_BYTES
    this.attempts = opts.connectAttempts ?? 6
    this.backoffMs = opts.connectBackoffMs ?? 20
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)))
    const rackOf = opts.rackOf ?? (() => '')
    this.counters = new ByteCounters(this.rank, rackOf)
    this.session = opts.session ?? 0
    this.handshakeTimeoutMs = opts.handshakeTimeoutMs ?? 5000
  }

  /** Sets the rank, rack map and job session once the driver has assigned them (the listener may already be open). */
  configure(rank: number, rackOf: (rank: number) => string, session = this.session): void {
    this.rank = rank
    this.counters = new ByteCounters(rank, rackOf)
    this.session = session
  }

  /** Starts the listener on `host` (port 0 = any free port) and resolves to the bound address. */
  async listen(host = '127.0.0.1', port = 0): Promise<PeerAddress> {
    const highWaterMark = this.chunkBytes * 4
    const server = net.createServer({ highWaterMark, noDelay: true }, (socket) => this.accept(socket))
    this.server = server
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => resolve())
    })
    const addr = server.address() as net.AddressInfo
    return { host, port: addr.port }
  }

  /**
   * Makes this node refuse data-plane connections: stops the listener and drops the connections
   * peers already opened to it (so their next send must reconnect, and is refused).
   */
  async closeListener(): Promise<void> {
    const server = this.server
    this.server = null
    for (const s of this.incoming) s.destroy()
    if (server) await new Promise<void>((r) => server.close(() => r()))
  }

  /** Sets the address of every rank (index = rank). */
  setPeers(peers: PeerAddress[]): void {
    this.peers = peers.slice()
  }

  /** Replaces one rank's address (a replacement worker) and drops the old connection to it. */
  updatePeer(rank: number, addr: PeerAddress): void {
    this.peers[rank] = addr
    const old = this.outgoing.get(rank)
    this.outgoing.delete(rank)
    old?.then((s) => s.destroy()).catch(() => {})
  }

  private accept(socket: net.Socket): void {
    this.incoming.add(socket)
    socket.setNoDelay(true)
    // Bytes are attributed to the connection's real peer (named by its hello frame), not to
    // header.from, which a chain node may set to route around a skipped member.
    let peer = -1
    let target: InboxEntry | null = null
    const decoder = new FrameStreamDecoder({
      header: (h) => {
        target = null
        if (h.type === FrameType.hello) {
          // Answer with who we are; the connector checks it reached the rank and job it meant
          // (a stale address may now belong to another worker or another program).
          socket.write(encodeFrameHeader(handshakeHeader(FrameType.welcome, this.rank, this.session, h.from)))
          if (h.op !== this.session >>> 0 || h.chunkIndex !== this.rank >>> 0) {
            socket.end()
            return
          }
          peer = h.from
          return
        }
        if (h.type !== FrameType.data) return
        if (peer >= 0 && peer !== this.rank) this.counters.received(peer, h.payloadBytes, h.op)
        if (this.abortedOps.has(h.op)) return
        target = this.entry(h.from, h.op, h.step)
        target.buffer ??= new Uint8Array(h.totalBytes)
      },
      // The one copy on the receive path: socket read → message buffer.
      data: (h, piece, at) => {
        if (target?.buffer) target.buffer.set(piece, h.offset + at)
      },
      end: (h) => {
        if (target) this.complete(target, h)
      },
    })
    socket.on('data', (chunk: Buffer) => decoder.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => this.incoming.delete(socket))
  }

  private complete(e: InboxEntry, h: FrameHeader): void {
    e.done.push(h)
    const wake = e.wake
    e.wake = null
    wake?.()
  }

  private entry(from: number, op: number, step: number): InboxEntry {
    const key = `${from}:${op}:${step}`
    let e = this.inbox.get(key)
    if (!e) {
      e = { buffer: null, done: [], wake: null, error: this.abortedOps.get(op) ?? null }
      this.inbox.set(key, e)
    }
    return e
  }

  /**
   * Fails every pending and future receive of `op` with `error` (a collective abandoned because
   * a participant died), and drops its buffered frames.
   */
  abort(op: number, error: Error): void {
    this.abortedOps.set(op, error)
    for (const [key, e] of this.inbox) {
      if (Number(key.split(':')[1]) !== op) continue
      e.error = error
      e.done = []
      const wake = e.wake
      e.wake = null
      wake?.()
    }
  }

  /**
   * Yields the chunks of the message (from, op, step) as they complete, in order, ending after
   * the last one. Each chunk's `data` is a stable view of the message buffer, so a chain node can
   * forward it without copying.
   */
  async *chunks(from: number, op: number, step: number, timeoutMs?: number): AsyncGenerator<RecvChunk> {
    const key = `${from}:${op}:${step}`
    const e = this.entry(from, op, step)
    let seen = 0
    let count = 1
    try {
      while (seen < count) {
        if (e.error) throw e.error
        const h = e.done.shift()
        if (!h) {
          await this.waitFor(e, timeoutMs, `message from rank ${from} (op ${op}, step ${step})`)
          continue
        }
        count = h.chunkCount
        seen++
        const buffer = e.buffer!
        yield { header: h, data: buffer.subarray(h.offset, h.offset + h.payloadBytes), buffer }
      }
    } finally {
      if (this.inbox.get(key) === e) this.inbox.delete(key)
    }
  }

  private waitFor(e: InboxEntry, timeoutMs: number | undefined, what: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      e.wake = () => {
        if (timer) clearTimeout(timer)
        resolve()
      }
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          e.wake = null
          reject(new CodebookError('RECV_TIMEOUT', `rank ${this.rank}: no ${what} within ${timeoutMs} ms`))
        }, timeoutMs)
      }
    })
  }

  /**
   * Receives a whole message into `dest` (or a buffer sized from the first frame) and resolves
   * to it. Frames carry their own offsets, so several messages may fill one buffer. If `dest` is
   * posted before the data arrives, bytes go from the socket straight into it; data that arrived
   * earlier sits in its own buffer and is copied over.
   */
  async recv(
    from: number,
    op: number,
    step: number,
    dest?: Uint8Array,
    timeoutMs?: number,
  ): Promise<Uint8Array> {
    const e = this.entry(from, op, step)
    if (dest && !e.buffer) e.buffer = dest
    let out: Uint8Array | null = null
    for await (const c of this.chunks(from, op, step, timeoutMs)) {
      out = dest ?? c.buffer
      if (c.buffer !== out) out.set(c.data, c.header.offset)
    }
    return out ?? dest ?? new Uint8Array(0)
  }

  /** Opens (or reuses) the outgoing connection to `to`, retrying with exponential backoff. */
  connection(to: number): Promise<net.Socket> {
    let p = this.outgoing.get(to)
    // A connection the peer has since closed is replaced by a fresh attempt (which may be refused).
    if (p && this.connected.get(to)?.destroyed) {
      this.outgoing.delete(to)
      this.connected.delete(to)
      p = undefined
    }
    if (!p) {
      p = this.connect(to)
      this.outgoing.set(to, p)
      p.then(
        (socket) => this.connected.set(to, socket),
        () => {
          if (this.outgoing.get(to) === p) this.outgoing.delete(to)
        },
      )
    }
    return p
  }

  private async connect(to: number): Promise<net.Socket> {
    const addr = this.peers[to]
    if (!addr) throw new CodebookError('PEER_UNKNOWN', `rank ${this.rank}: no address for rank ${to}`)
    let delay = this.backoffMs
    let lastError: Error | null = null
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      if (this.closed) break
      try {
        const socket = await openSocket(addr, this.chunkBytes * 4)
        socket.on('error', () => {})
        socket.write(encodeFrameHeader(handshakeHeader(FrameType.hello, this.rank, this.session, to)))
        await awaitWelcome(socket, to, this.session, this.handshakeTimeoutMs)
        socket.on('close', () => {
          const current = this.outgoing.get(to)
          // `current` may already be a newer attempt (the closed socket was seen as destroyed
          // first); if that one fails, its owner handles it: here it must not be an unhandled rejection.
          current?.then(
            (s) => s === socket && this.outgoing.get(to) === current && this.outgoing.delete(to),
            () => {},
          )
        })
        // Nothing else is expected on an outgoing socket; drain it so the socket never stalls.
        socket.resume()
        return socket
      } catch (err) {
        lastError = err as Error
        await this.sleep(delay)
        delay = Math.min(delay * 2, 1000)
      }
    }
    throw new PeerUnreachableError(
      to,
      `rank ${this.rank}: cannot connect to rank ${to} at ${addr.host}:${addr.port} after ${this.attempts} attempts (${lastError?.message ?? 'closed'})`,
    )
  }

  /**
   * Sends one frame; the payload is written as is (a view, never copied) and must stay unchanged
   * until this resolves. `header.from` is the sender the receiver files the frame under: normally
   * this rank, but a chain node routing around a dead member sends as that member's predecessor.
   */
  async sendFrame(to: number, header: FrameHeader, payload: Uint8Array): Promise<void> {
    if (to === this.rank) {
      // Loopback to self: no socket, no byte count; copied into the message buffer like a socket read.
      if (this.abortedOps.has(header.op)) return
      const e = this.entry(header.from, header.op, header.step)
      e.buffer ??= new Uint8Array(header.totalBytes)
      e.buffer.set(payload, header.offset)
      this.complete(e, { ...header, payloadBytes: payload.byteLength })
      return
    }
    const socket = await this.connection(to)
    if (socket.destroyed)
      throw new CodebookError('PEER_CLOSED', `rank ${this.rank}: connection to rank ${to} is closed`)
    const h = encodeFrameHeader({ ...header, payloadBytes: payload.byteLength })
    // Corked so header and payload leave in one writev; the payload is a view, not a copy.
    // Uncork in the same tick: deferring it (nextTick) let the caller's synchronous work after
    // `await sendFrame` (a map stage) run first and hold the frame back for its whole duration.
    socket.cork()
    let ok = socket.write(h)
    if (payload.byteLength > 0) ok = socket.write(payload)
    socket.uncork()
    this.counters.sent(to, payload.byteLength, header.op)
    if (!ok) await waitDrain(socket)
  }

  /**
   * Sends bytes [start, end) of `data` as one message of (op, step), cut into chunks of
   * `chunkBytes`; the receiver sees offsets relative to `data` and `totalBytes = data.byteLength`.
   * An empty range still sends one empty frame so the receiver learns the message is complete.
   */
  async sendRange(
    to: number,
    op: number,
    step: number,
    data: Uint8Array,
    start = 0,
    end = data.byteLength,
  ): Promise<void> {
    const n = end - start
    const count = Math.max(1, Math.ceil(n / this.chunkBytes))
    for (let i = 0; i < count; i++) {
      const a = start + i * this.chunkBytes
      const b = Math.min(end, a + this.chunkBytes)
      await this.sendFrame(
        to,
        {
          type: FrameType.data,
          step,
          from: this.rank,
          op,
          chunkIndex: i,
          chunkCount: count,
          payloadBytes: b - a,
          offset: a,
          totalBytes: data.byteLength,
        },
        data.subarray(a, b),
      )
    }
  }

  /** Closes the listener and every connection, and fails pending receives. */
  async close(): Promise<void> {
    this.closed = true
    await this.closeListener()
    for (const p of this.outgoing.values()) p.then((s) => s.destroy()).catch(() => {})
    this.outgoing.clear()
    for (const s of this.incoming) s.destroy()
    const err = new CodebookError('TRANSPORT_CLOSED', `rank ${this.rank}: data plane closed`)
    for (const e of this.inbox.values()) {
      e.error = err
      e.wake?.()
    }
  }
}

/** A `hello` (to = the rank meant) or `welcome` (to = the connector's rank) header. */
function handshakeHeader(type: FrameType, rank: number, session: number, to: number): FrameHeader {
  return {
    type,
    step: 0,
    // A node not yet configured has rank -1; u32 fields carry it as 0xffffffff.
    from: rank >>> 0,
    op: session >>> 0,
    chunkIndex: to >>> 0,
    chunkCount: 1,
    payloadBytes: 0,
    offset: 0,
    totalBytes: 0,
  }
}

/**
 * Waits for the acceptor's `welcome` and checks it names rank `to` of this session. Anything
 * else — another job's worker, a different rank now on that port, a program that does not
 * speak the protocol, or silence — destroys the socket and throws `PEER_MISMATCH`.
 */
function awaitWelcome(socket: net.Socket, to: number, session: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0)
    const fail = (why: string) => {
      cleanup()
      socket.destroy()
      reject(new CodebookError('PEER_MISMATCH', why))
    }
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk])
      if (got.length < FRAME_HEADER_BYTES) return
      const h = decodeFrameHeader(got, 0)
      if (h.type !== FrameType.welcome) return fail('the listener does not speak the data-plane protocol')
      if (h.op !== session >>> 0 || h.from !== to >>> 0)
        return fail(
          `the listener is rank ${h.from | 0} of session ${h.op}, not rank ${to} of session ${session}`,
        )
      cleanup()
      resolve()
    }
    const onClose = () => fail('the listener closed the connection before answering')
    const timer = setTimeout(() => fail(`no answer to the handshake within ${timeoutMs} ms`), timeoutMs)
    const cleanup = () => {
      clearTimeout(timer)
      socket.off('data', onData)
      socket.off('close', onClose)
    }
    socket.on('data', onData)
    socket.once('close', onClose)
  })
}

function openSocket(addr: PeerAddress, highWaterMark: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    // highWaterMark on a client socket works at runtime (Node ≥ 18.11) but is missing from @types/node 20.
    const options: net.NetConnectOpts & { highWaterMark: number } = {
      host: addr.host,
      port: addr.port,
      highWaterMark,
      noDelay: true,
    }
    const s = net.createConnection(options)
    s.once('connect', () => {
      s.removeListener('error', reject)
      resolve(s)
    })
    s.once('error', reject)
  })
}

function waitDrain(socket: net.Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    // A socket that closed before we got here will never emit 'close' again.
    if (socket.destroyed) {
      reject(new CodebookError('PEER_CLOSED', 'connection closed while sending'))
      return
    }
    const onDrain = () => {
      socket.off('close', onClose)
      resolve()
    }
    const onClose = () => {
      socket.off('drain', onDrain)
      reject(new CodebookError('PEER_CLOSED', 'connection closed while sending'))
    }
    socket.once('drain', onDrain)
    socket.once('close', onClose)
  })
}
