import net from 'node:net'
import { hostname } from 'node:os'
import { CodebookError } from '../errors.ts'
import { DataPlane, type PeerAddress } from '../transport/data-plane.ts'
import type { Application, HandlerReply, WorkerContext } from './application.ts'
import { ControlChannel, type ControlMessage } from './control-channel.ts'
import {
  type EventMessage,
  parseControl,
  RefusedMessage,
  type RegisterMessage,
  type ReplyMessage,
  RequestMessage,
} from './protocol.ts'

/** Options of {@link runWorker}; dependencies (clock, applications) are passed in. */
export interface WorkerOptions {
  /** Driver control address. */
  join: PeerAddress
  /** The applications this worker serves (the driver addresses them by name). */
  applications: readonly Application[]
  /** Rack this worker reports (a topology given to the driver overrides it). */
  rack?: string
  /** Token the driver gave a worker it spawned (so it gets the rank it was spawned for), or the run's secret for a joining worker. */
  token?: string
  /** Host name reported to the driver (default `os.hostname()`; tests pose as other hosts). */
  hostName?: string
  /** Data-plane listen host; default: the local address this worker reaches the driver from. */
  host?: string
  /** Monotonic milliseconds. */
  now: () => number
  connectAttempts?: number
}

/**
 * A worker node: registers with the driver over TCP, opens its data-plane listener, then serves
 * driver requests (set-up, collectives, application messages) until told to shut down or the
 * driver goes away. Resolves when the worker has stopped.
 */
export async function runWorker(opts: WorkerOptions): Promise<void> {
  let racks: string[] = []
  let rank = -1
  const socket = await connectWithRetry(opts.join, opts.connectAttempts ?? 40)
  // The address that reaches the driver reaches the other workers too (loopback for local
  // workers, the namespace's own address in the network lab), so it is the default to listen on.
  const host = opts.host ?? socket.localAddress ?? '127.0.0.1'
  // Ranks are assigned at set-up, so the listener opens before registering (rank unknown) to report its port.
  const plane = new DataPlane({ rank: -1 })
  const addr = await plane.listen(host)
  const control = new ControlChannel(socket)
  const ctx: WorkerContext = { plane, racks: () => racks, now: opts.now }
  const registry = new Map(opts.applications.map((app) => [app.name, app]))
  // Each application's state, created at its first message and disposed at shutdown.
  const states = new Map<string, unknown>()
  const send = (reply: ReplyMessage, blobs: Uint8Array[] = []) => control.send(reply, blobs)

  const done = new Promise<void>((resolve, reject) => {
    control.onClose(() => resolve())
    control.onMessage((m) => {
      const refused = rank < 0 ? RefusedMessage.safeParse(m.body) : undefined
      if (refused?.success)
        return reject(
          new CodebookError(refused.data.code, `the driver refused this worker: ${refused.data.message}`),
        )
      handle(m).catch((err: unknown) => {
        const e = err as Error & { code?: string; ranks?: number[] }
        const id = typeof m.body.id === 'number' ? m.body.id : 0
        send({
          type: 'reply',
          id,
          ok: false,
          error: { code: e.code ?? 'WORKER_FAILURE', message: e.message, ranks: e.ranks ?? [] },
        })
      })
    })
  })

  async function serveApplication(
    id: number,
    name: string,
    message: unknown,
    blobs: Uint8Array[],
  ): Promise<HandlerReply> {
    const app = registry.get(name)
    if (!app)
      throw new CodebookError(
        'APP_UNKNOWN',
        `this worker serves no application '${name}' (it serves ${[...registry.keys()].join(', ') || 'none'})`,
      )
    const parsed = parseControl(app.messages, message, `${name} message`)
    if (!states.has(name)) states.set(name, app.createState(ctx))
    const emit = (body: unknown) => control.send({ type: 'event', id, body } satisfies EventMessage)
    return app.handle(states.get(name), parsed, blobs, { ...ctx, emit })
  }

  async function handle(m: ControlMessage): Promise<void> {
    const b = parseControl(RequestMessage, m.body, 'control message')
    const reply = (result: unknown = null, blobs: Uint8Array[] = []): void => {
      send({ type: 'reply', id: b.id, ok: true, result }, blobs)
    }
    switch (b.type) {
      case 'setup':
        rank = b.rank
        racks = b.racks
        plane.configure(rank, (r) => racks[r] ?? '', b.session)
        plane.chunkBytes = b.chunkBytes
        plane.setPeers(b.peers)
        return reply()
      case 'peers':
        for (const [r, a] of b.peers.entries()) if (r !== rank) plane.updatePeer(r, a)
        racks = b.racks
        return reply()
      case 'chunk-bytes':
        plane.chunkBytes = b.chunkBytes
        return reply()
      case 'close-listener':
        await plane.closeListener()
        return reply()
      case 'abort':
        for (const op of b.ops)
          plane.abort(op, new CodebookError('OP_ABORTED', `op ${op} aborted by the driver`))
        return reply()
      case 'app': {
        const { result = null, blobs = [] } = await serveApplication(b.id, b.app, b.message, m.blobs)
        return reply(result, blobs)
      }
      case 'shutdown':
        reply()
        for (const [name, state] of states) await registry.get(name)?.dispose?.(state)
        states.clear()
        await plane.close()
        control.close()
        return
    }
  }

  const register: RegisterMessage = {
    type: 'register',
    token: opts.token ?? null,
    host,
    port: addr.port,
    rack: opts.rack ?? null,
    pid: process.pid,
    hostName: opts.hostName ?? hostname(),
  }
  control.send(register)
  try {
    await done
  } finally {
    control.close()
    await plane.close()
  }
}

async function connectWithRetry(addr: PeerAddress, attempts: number): Promise<net.Socket> {
  let delay = 20
  for (let i = 0; ; i++) {
    try {
      return await new Promise<net.Socket>((resolve, reject) => {
        const s = net.createConnection({ host: addr.host, port: addr.port, noDelay: true })
        s.once('connect', () => {
          s.removeListener('error', reject)
          resolve(s)
        })
        s.once('error', reject)
      })
    } catch (err) {
      if (i + 1 >= attempts)
        throw new CodebookError(
          'DRIVER_UNREACHABLE',
          `cannot reach the driver at ${addr.host}:${addr.port}: ${(err as Error).message}`,
        )
      await new Promise((r) => setTimeout(r, delay))
      delay = Math.min(delay * 2, 1000)
    }
  }
}
