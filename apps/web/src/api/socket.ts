import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { io } from 'socket.io-client'
import { applyDatasetEvent } from './dataset-events.ts'
import { queryKeys } from './queries.ts'

/** Whether the live event socket is connected. */
export type SocketStatus = 'connecting' | 'live' | 'offline'

/**
 * Connects to the server's socket.io endpoint (same origin) for the lifetime of the calling
 * component and feeds `dataset:event` into the query cache. Returns the connection status.
 */
export function useDatasetEventSocket(): SocketStatus {
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<SocketStatus>('connecting')
  useEffect(() => {
    const socket = io({ path: '/socket.io', transports: ['websocket', 'polling'] })
    socket.on('connect', () => {
      setStatus('live')
      // Events sent while we were disconnected are gone: catch up from the API.
      void queryClient.invalidateQueries({ queryKey: queryKeys.datasets })
    })
    socket.on('disconnect', () => setStatus('offline'))
    socket.on('connect_error', () => setStatus('offline'))
    socket.on('dataset:event', (event: unknown) => applyDatasetEvent(queryClient, event))
    return () => {
      socket.close()
    }
  }, [queryClient])
  return status
}
