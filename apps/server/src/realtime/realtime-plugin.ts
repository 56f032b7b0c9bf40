import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Server } from 'socket.io'

declare module 'fastify' {
  interface FastifyInstance {
    /** socket.io server sharing the HTTP server (path `/socket.io`). */
    io: Server
  }
}

/**
 * Attaches socket.io to `app.server` (no separate port). The stale fastify-socket.io plugin is
 * not used; this is the same few lines, typed.
 */
async function realtimePluginImpl(app: FastifyInstance): Promise<void> {
  // The UI is served by this server, so same-origin needs no CORS; the client library is bundled by the web app.
  const io = new Server(app.server, { serveClient: false })
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
