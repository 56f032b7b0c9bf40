import { type ClientToServerEvents, type ServerToClientEvents, SOCKET_IO_PATH } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Server, type Socket } from 'socket.io'
import { hostAllowed, originAllowed } from '../http/origin-policy.ts'

/** The socket.io server, typed by the shared event contract (what clients send, what it emits). */
export type RealtimeServer = Server<ClientToServerEvents, ServerToClientEvents>
/** One client's socket on {@link RealtimeServer}. */
export type RealtimeSocket = Socket<ClientToServerEvents, ServerToClientEvents>

declare module 'fastify' {
  interface FastifyInstance {
    /** socket.io server sharing the HTTP server (path `SOCKET_IO_PATH`). */
    io: RealtimeServer
  }
}

/** Options of {@link realtimePlugin}. */
export interface RealtimePluginOptions {
  /** Origins besides the server's own that may open a socket (CODEBOOK_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[]
  /** Host names besides IP literals and localhost the server answers to (CODEBOOK_ALLOWED_HOSTS). */
  allowedHosts: readonly string[]
}

/**
 * Attaches socket.io to `app.server` (no separate port). The stale fastify-socket.io plugin is
 * not used; this is the same few lines, typed.
 */
async function realtimePluginImpl(app: FastifyInstance, options: RealtimePluginOptions): Promise<void> {
  const allowed = options.allowedOrigins
  const io: RealtimeServer = new Server<ClientToServerEvents, ServerToClientEvents>(app.server, {
    path: SOCKET_IO_PATH,
    serveClient: false,
    // Browsers send Origin on every websocket and polling request; a page from another site must
    // not read run events through the visitor's browser (the HTTP origin policy, applied here too).
    allowRequest: (req, callback) =>
      callback(
        null,
        hostAllowed(req.headers.host, options.allowedHosts) &&
          originAllowed(req.headers.origin, req.headers.host, allowed),
      ),
    ...(allowed.length > 0 ? { cors: { origin: [...allowed] } } : {}),
  })
  app.decorate('io', io)
  // Open websockets would keep server.close() waiting, so drop them before Fastify closes the server.
  app.addHook('preClose', async () => {
    io.local.disconnectSockets(true)
  })
  app.addHook('onClose', async () => {
    await io.close()
  })
}

/** Decorates `app.io` (socket.io) and closes it with the app. */
export const realtimePlugin = fp(realtimePluginImpl, { name: 'codebook-realtime', fastify: '5.x' })
