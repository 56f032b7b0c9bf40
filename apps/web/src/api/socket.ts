import {
  type ClientToServerEvents,
  RunChanged,
  type ServerToClientEvents,
  SOCKET_IO_PATH,
  socketEvents,
} from '@codebook/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { io, type Socket } from 'socket.io-client'
import { applyDatasetEvent } from './dataset-events.ts'
import { queryKeys } from './queries.ts'

/** Whether the live event socket is connected. */
export type SocketStatus = 'connecting' | 'live' | 'offline'

/** A socket to the server, typed by the shared event contract. */
export type EventSocket = Socket<ServerToClientEvents, ClientToServerEvents>

/**
 * Opens a socket to the server's socket.io endpoint (same origin). `own`: a connection of the
 * caller's own (`forceNew`); without it `io()` hands back the app's shared socket, and closing
 * that would end every other page's feed.
 */
export function openEventSocket(own: boolean): EventSocket {
  return io({
    path: SOCKET_IO_PATH,
    transports: ['websocket', 'polling'],
    ...(own ? { forceNew: true } : {}),
  })
}

/** Coalesces `run:changed` bursts (a run's queued → running → … states) into one refetch. */
const RUN_LIST_REFRESH_MS = 250

/**
 * Connects to the server's socket.io endpoint (same origin) for the lifetime of the calling
 * component and feeds `dataset:event` into the query cache; `run:changed` (a run created, changed,
 * relabelled or deleted anywhere: API, CLI, another tab) refetches every runs query. Returns the
 * connection status.
 */
export function useDatasetEventSocket(): SocketStatus {
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<SocketStatus>('connecting')
  useEffect(() => {
    const socket = openEventSocket(false)
    socket.on('connect', () => {
      setStatus('live')
      // Events sent while we were disconnected are gone: catch up from the API.
      void queryClient.invalidateQueries({ queryKey: queryKeys.datasets })
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs })
    })
    socket.on('disconnect', () => setStatus('offline'))
    socket.on('connect_error', () => setStatus('offline'))
    socket.on(socketEvents.datasetEvent, (event) => applyDatasetEvent(queryClient, event))
    let refresh: ReturnType<typeof setTimeout> | undefined
    socket.on(socketEvents.runChanged, (raw) => {
      const change = RunChanged.safeParse(raw)
      if (change.success && change.data.change === 'deleted')
        queryClient.removeQueries({ queryKey: queryKeys.run(change.data.id), exact: true })
      refresh ??= setTimeout(() => {
        refresh = undefined
        void queryClient.invalidateQueries({ queryKey: queryKeys.runs })
      }, RUN_LIST_REFRESH_MS)
    })
    return () => {
      clearTimeout(refresh)
      socket.close()
    }
  }, [queryClient])
  return status
}
