/**
 * The socket.io clients of the event-delivery bench, in their own process (forked by bench.ts) so
 * that parsing 50 clients' messages does not share the server's event loop. Commands come over IPC;
 * times are absolute (`performance.timeOrigin + performance.now()`), comparable across processes.
 */
import { type ClientToServerEvents, type ServerToClientEvents, socketEvents } from '@codebook/shared'
import { io as connect, type Socket } from 'socket.io-client'

/** A command from the bench. */
export type ClientCommand =
  | { cmd: 'open'; url: string; path: string; runId: string; count: number; total: number }
  | { cmd: 'join'; from: number; to: number }
  | { cmd: 'status' }
  | { cmd: 'close' }

/** What one client saw, checked as events came: seq 1..total in order, each once. */
export interface ClientStats {
  received: number
  gaps: number
  duplicates: number
  /** Absolute time the last seq arrived (null: never). */
  doneAt: number | null
  /** Times the socket disconnected (it reconnects and joins again with its last seq, as the page does). */
  disconnects: number
}

const now = () => performance.timeOrigin + performance.now()

interface Client {
  socket: Socket<ServerToClientEvents, ClientToServerEvents>
  stats: ClientStats
  expected: number
  joined: boolean
}

let clients: Client[] = []
let runId = ''
let total = 0

function reportIfDone() {
  if (clients.length > 0 && clients.every((c) => c.stats.doneAt !== null))
    process.send?.({ type: 'done', stats: clients.map((c) => c.stats) })
}

function open(url: string, path: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket: Client['socket'] = connect(url, { path, transports: ['websocket'], forceNew: true })
    const client: Client = {
      socket,
      expected: 1,
      joined: false,
      stats: { received: 0, gaps: 0, duplicates: 0, doneAt: null, disconnects: 0 },
    }
    socket.on(socketEvents.jobEvent, (e) => {
      if (e.kind !== 'run' || e.id !== runId) return
      const s = client.stats
      s.received++
      if (e.seq < client.expected) s.duplicates++
      else if (e.seq > client.expected) s.gaps += e.seq - client.expected
      client.expected = Math.max(client.expected, e.seq + 1)
      if (e.seq === total) {
        s.doneAt = now()
        reportIfDone()
      }
    })
    socket.on('disconnect', () => {
      client.stats.disconnects++
    })
    // As the web page does: after a reconnect, join again with the last seq held.
    socket.on('connect', () => {
      // The first reply is awaited below; a rejoin's only matters as the events that follow it.
      if (client.joined)
        socket.emit(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: client.expected - 1 }, () => {})
    })
    socket.once('connect_error', reject)
    socket.once('connect', () => resolve(client))
  })
}

process.on('message', async (m: ClientCommand) => {
  if (m.cmd === 'open') {
    for (const c of clients) c.socket.close()
    runId = m.runId
    total = m.total
    clients = await Promise.all(Array.from({ length: m.count }, () => open(m.url, m.path)))
    process.send?.({ type: 'opened' })
  } else if (m.cmd === 'join') {
    const at = now()
    await Promise.all(
      clients.slice(m.from, m.to).map(
        (c) =>
          new Promise<void>((resolve, reject) => {
            c.joined = true
            // The reply comes once the client has caught up; a disconnect before it loses it, and
            // the reconnect joins again (above), so stop waiting.
            c.socket.once('disconnect', () => resolve())
            c.socket.emit(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: 0 }, (ack) =>
              ack.ok ? resolve() : reject(new Error(`${ack.code}: ${ack.message}`)),
            )
          }),
      ),
    )
    process.send?.({ type: 'joined', at })
  } else if (m.cmd === 'status') {
    process.send?.({ type: 'done', stats: clients.map((c) => c.stats) })
  } else if (m.cmd === 'close') {
    for (const c of clients) c.socket.close()
    process.exit(0)
  }
})
