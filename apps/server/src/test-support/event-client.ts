import type { ClientToServerEvents, ServerToClientEvents } from '@codebook/shared'
import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client'

/** A socket.io client typed by the shared event contract, as the web app's sockets are. */
export type EventClient = Socket<ServerToClientEvents, ClientToServerEvents>

/**
 * A new websocket connection to `url` (its own, `forceNew`). Attach listeners, then await
 * {@link connected}, so no event can arrive before its listener.
 */
export function eventClient(url: string, options: Partial<ManagerOptions & SocketOptions> = {}): EventClient {
  return io(url, { transports: ['websocket'], forceNew: true, ...options })
}

/** Resolves once `socket` is connected; rejects with its connect error. */
export function connected(socket: EventClient): Promise<EventClient> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket))
    socket.once('connect_error', reject)
  })
}
