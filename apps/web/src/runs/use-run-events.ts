import { Run, type RunEvent, RunSocketEvent } from '@codebook/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { io } from 'socket.io-client'
import { queryKeys } from '../api/queries.ts'
import type { SocketStatus } from '../api/socket.ts'
import { emptyRunEventState, mergeRunEvents, type RunEventState } from './run-events.ts'

/** Spacing of flushes while a backlog arrives, ms. */
export const BURST_FLUSH_MS = 250

/**
 * Streams a run's events over socket.io: joins with the last seq held (`run:join { runId, lastSeq }`)
 * on every (re)connect, so the server sends only what is missing. Events are buffered and merged
 * once per animation frame: at most one React render per frame however fast iterations arrive.
 * While a backlog streams in (a flush merged more than one event), flushes are spaced
 * {@link BURST_FLUSH_MS} apart so the page does not redraw a growing chart on every frame.
 * A `state` event carries the whole run record: it replaces the cached run at once, so status and
 * iteration count do not wait for the next poll.
 */
export function useRunEvents(runId: string): { state: RunEventState; socket: SocketStatus } {
  const [state, setState] = useState<RunEventState>(emptyRunEventState)
  const [status, setStatus] = useState<SocketStatus>('connecting')
  const queryClient = useQueryClient()

  useEffect(() => {
    let merged = emptyRunEventState
    let pending: RunEvent[] = []
    let frame: number | null = null
    let timer: ReturnType<typeof setTimeout> | null = null
    let lastFlush = 0
    let burst = false
    // forceNew: io() would otherwise hand back the app's shared dataset socket, which closing here would end.
    const socket = io({ path: '/socket.io', transports: ['websocket', 'polling'], forceNew: true })

    const flush = () => {
      frame = null
      lastFlush = performance.now()
      burst = pending.length > 1
      const fresh = pending.filter((e) => e.seq > merged.lastSeq)
      const lastState = fresh.findLast((e) => e.type === 'state')
      const record = lastState ? Run.safeParse(lastState.data) : null
      if (record?.success) {
        queryClient.setQueryData(queryKeys.run(runId), record.data)
        void queryClient.invalidateQueries({ queryKey: queryKeys.runs, exact: true })
      }
      const next = mergeRunEvents(merged, pending)
      pending = []
      if (next !== merged) {
        merged = next
        setState(next)
      }
    }
    const schedule = () => {
      if (frame !== null || timer !== null) return
      const wait = burst ? lastFlush + BURST_FLUSH_MS - performance.now() : 0
      if (wait <= 0) frame = requestAnimationFrame(flush)
      else
        timer = setTimeout(() => {
          timer = null
          frame = requestAnimationFrame(flush)
        }, wait)
    }
    // The seq the page holds, counting events received but not merged yet.
    const lastSeq = () => pending.reduce((max, e) => Math.max(max, e.seq), merged.lastSeq)

    socket.on('connect', () => {
      setStatus('live')
      socket.emit('run:join', { runId, lastSeq: lastSeq() })
    })
    socket.on('disconnect', () => setStatus('offline'))
    socket.on('connect_error', () => setStatus('offline'))
    socket.on('run:event', (payload: unknown) => {
      const parsed = RunSocketEvent.safeParse(payload)
      if (!parsed.success || parsed.data.runId !== runId) return
      pending.push(parsed.data)
      schedule()
    })
    return () => {
      if (frame !== null) cancelAnimationFrame(frame)
      if (timer !== null) clearTimeout(timer)
      socket.close()
    }
  }, [runId, queryClient])

  return { state, socket: status }
}
