import type { ServerToClientEvents } from '@codebook/shared'
import { type QueryClient, type QueryKey, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { openEventSocket, type SocketStatus } from './socket.ts'

/**
 * Feeds one server event into the query cache with `apply` while the calling page is mounted,
 * over its own socket (`forceNew`: closing it on unmount must not end the app's dataset feed);
 * on every (re)connect `catchUp` is invalidated, since events sent while disconnected are gone.
 * Returns the connection status; pages poll faster while it is not `live`.
 */
export function useEventFeed(
  event: 'evaluation:event' | 'study:event',
  apply: (queryClient: QueryClient, raw: unknown) => void,
  catchUp: QueryKey,
): SocketStatus {
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<SocketStatus>('connecting')
  const catchUpKey = JSON.stringify(catchUp)
  useEffect(() => {
    const socket = openEventSocket(true)
    socket.on('connect', () => {
      setStatus('live')
      void queryClient.invalidateQueries({ queryKey: JSON.parse(catchUpKey) as QueryKey })
    })
    socket.on('disconnect', () => setStatus('offline'))
    socket.on('connect_error', () => setStatus('offline'))
    const listener = (raw: unknown) => apply(queryClient, raw)
    socket.on(event, listener as ServerToClientEvents[typeof event])
    return () => {
      socket.close()
    }
  }, [queryClient, event, apply, catchUpKey])
  return status
}
