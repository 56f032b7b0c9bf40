import { type RunEvent, RunJoin, type RunSocketEvent } from '@codebook/shared'
import type { Server, Socket } from 'socket.io'

/** Events read from the database per backlog query. */
const BACKLOG_PAGE = 1000

/** Room of a run's live events. */
export function runRoom(runId: string): string {
  return `run:${runId}`
}

/** What one socket has been sent of one run. */
interface Delivery {
  /** Highest seq sent to this socket. */
  sent: number
  /** Live events that arrived while the backlog was being read and sent; null once live. */
  buffer: RunEvent[] | null
}

function deliveries(socket: Socket): Map<string, Delivery> {
  const data = socket.data as { runDeliveries?: Map<string, Delivery> }
  data.runDeliveries ??= new Map()
  return data.runDeliveries
}

function send(socket: Socket, runId: string, d: Delivery, event: RunEvent): void {
  // The high-water mark drops what the backlog already sent; events come in seq order, so nothing is skipped.
  if (event.seq <= d.sent) return
  d.sent = event.seq
  const payload: RunSocketEvent = { runId, ...event }
  socket.emit('run:event', payload)
}

/** Reply to `run:join` (through the optional acknowledgement callback). */
export type RunJoinAck = { ok: true; lastSeq: number } | { ok: false; code: string; message: string }

/**
 * Wires `run:join` { runId, lastSeq }: the socket joins room `run:<id>` FIRST, then the backlog
 * (seq > lastSeq) is read and sent, then the live events buffered meanwhile are flushed. Per
 * socket and run a high-water mark of the last seq sent guarantees no gap and no duplicate:
 * every event committed before the backlog read is in the backlog, every later one is emitted
 * after the join and is buffered or sent live. Returns `publish`, which the run service calls
 * once per stored event (in seq order per run).
 */
export function attachRunSocket(
  io: Server,
  readBacklog: (runId: string, after: number, limit: number) => Promise<RunEvent[]>,
): { publish(runId: string, event: RunEvent): void } {
  io.on('connection', (socket) => {
    socket.on('run:join', async (payload: unknown, ack?: (reply: RunJoinAck) => void) => {
      const reply = typeof ack === 'function' ? ack : () => undefined
      const parsed = RunJoin.safeParse(payload)
      if (!parsed.success) {
        reply({ ok: false, code: 'BAD_JOIN', message: 'expected { runId: string, lastSeq: integer ≥ 0 }' })
        return
      }
      const { runId, lastSeq } = parsed.data
      const d: Delivery = { sent: lastSeq, buffer: [] }
      deliveries(socket).set(runId, d)
      await socket.join(runRoom(runId))
      try {
        // Page through the backlog: a long run's log is too large to hold (×50 clients) at once.
        for (;;) {
          const page = await readBacklog(runId, d.sent, BACKLOG_PAGE)
          for (const event of page) send(socket, runId, d, event)
          if (page.length < BACKLOG_PAGE) break
        }
      } catch (err) {
        deliveries(socket).delete(runId)
        await socket.leave(runRoom(runId))
        const code = (err as { code?: string }).code ?? 'RUN_JOIN_FAILED'
        reply({ ok: false, code, message: err instanceof Error ? err.message : String(err) })
        return
      }
      // Only this socket's own (later) join replaces d; a stale flush must not touch the new one.
      if (deliveries(socket).get(runId) !== d) return
      const buffered = d.buffer ?? []
      d.buffer = null
      for (const event of buffered) send(socket, runId, d, event)
      reply({ ok: true, lastSeq: d.sent })
    })
    socket.on('run:leave', async (payload: unknown) => {
      const runId = (payload as { runId?: unknown } | null)?.runId
      if (typeof runId !== 'string') return
      deliveries(socket).delete(runId)
      await socket.leave(runRoom(runId))
    })
  })

  return {
    publish(runId, event) {
      const members = io.sockets.adapter.rooms.get(runRoom(runId))
      if (!members) return
      for (const socketId of members) {
        const socket = io.sockets.sockets.get(socketId)
        const d = socket ? deliveries(socket).get(runId) : undefined
        if (!socket || !d) continue
        if (d.buffer) d.buffer.push(event)
        else send(socket, runId, d, event)
      }
    },
  }
}
