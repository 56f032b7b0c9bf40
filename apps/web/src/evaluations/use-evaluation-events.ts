import { socketEvents } from '@codebook/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { evaluationKeys } from '../api/evaluation-queries.ts'
import { openEventSocket, type SocketStatus } from '../api/socket.ts'
import { applyEvaluationEvent } from './evaluation-events.ts'

/**
 * Feeds the server's `evaluation:event`s into the query cache while the calling page is mounted,
 * over its own socket (`forceNew`: closing it on unmount must not end the app's dataset feed).
 * Returns the connection status; pages poll faster while it is not `live`.
 */
export function useEvaluationEvents(): SocketStatus {
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<SocketStatus>('connecting')
  useEffect(() => {
    const socket = openEventSocket(true)
    socket.on('connect', () => {
      setStatus('live')
      // Events sent while we were disconnected are gone: catch up from the API.
      void queryClient.invalidateQueries({ queryKey: evaluationKeys.evaluations })
    })
    socket.on('disconnect', () => setStatus('offline'))
    socket.on('connect_error', () => setStatus('offline'))
    socket.on(socketEvents.evaluationEvent, (event) => applyEvaluationEvent(queryClient, event))
    return () => {
      socket.close()
    }
  }, [queryClient])
  return status
}
