import { type JobEvent, serverEventSchemas, socketEvents } from '@codebook/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { queryKeys } from '../api/queries.ts'
import { openEventSocket, type SocketStatus } from '../api/socket.ts'
import { RunLive } from './run-live.ts'

/** Time a frame may spend applying queued events, ms; the rest waits for the next frame. */
export const FLUSH_BUDGET_MS = 8
/** Events applied between two looks at the clock. */
const FLUSH_SLICE = 16
/**
 * Least spacing of the page's re-renders, ms. At 50 iterations/s a render per frame would repaint
 * the page 60 times a second for text no one reads that fast; 10 per second looks live.
 */
export const RENDER_MS = 100

/**
 * Streams a run's events over socket.io into a {@link RunLive}: joins with the last seq held
 * (`job:join { kind: 'run', id, lastSeq }`) on every (re)connect, so the server sends only what is missing.
 * Incoming events are only queued; once per animation frame the queue is applied (typed-array
 * appends, no copies; a long backlog is spread over frames, {@link FLUSH_BUDGET_MS} each), and
 * `version` follows at most every {@link RENDER_MS}: ten React renders a second however fast
 * iterations arrive. Heavy views (charts, worker table) throttle themselves further on `version`.
 * A `state` event carries the whole run record: it replaces the cached run at once, so status and
 * iteration count do not wait for the next poll.
 */
export function useRunEvents(runId: string): { live: RunLive; version: number; socket: SocketStatus } {
  // One store per mounted page (the page is keyed by run id).
  const [live] = useState(() => new RunLive())
  const [version, setVersion] = useState(0)
  const [status, setStatus] = useState<SocketStatus>('connecting')
  const queryClient = useQueryClient()

  useEffect(() => {
    let pending: JobEvent[] = []
    let frame: number | null = null
    let renderTimer: ReturnType<typeof setTimeout> | null = null
    let lastRender = 0
    const render = () => {
      renderTimer = null
      lastRender = performance.now()
      setVersion(live.version)
    }
    // Leading and trailing: the first change shows at once, the last one always shows.
    const scheduleRender = () => {
      if (renderTimer !== null) return
      const wait = lastRender + RENDER_MS - performance.now()
      if (wait <= 0) render()
      else renderTimer = setTimeout(render, wait)
    }
    // Its own connection: closing the app's shared dataset socket here would end that feed.
    const socket = openEventSocket(true)

    const flush = () => {
      frame = null
      // A backlog (a reload mid-run) can bring hundreds of reports at once: apply them in slices
      // of FLUSH_BUDGET_MS per frame so no single task blocks the page for long.
      const start = performance.now()
      const before = live.lastState
      let changed = false
      let i = 0
      while (i < pending.length && performance.now() - start < FLUSH_BUDGET_MS) {
        if (live.apply(pending.slice(i, i + FLUSH_SLICE))) changed = true
        i += FLUSH_SLICE
      }
      pending = i >= pending.length ? [] : pending.slice(i)
      if (pending.length > 0) frame = requestAnimationFrame(flush)
      if (!changed) return
      if (live.lastState && live.lastState !== before) {
        queryClient.setQueryData(queryKeys.run(runId), live.lastState)
        void queryClient.invalidateQueries({ queryKey: queryKeys.runs, exact: true })
      }
      scheduleRender()
    }
    // The seq the page holds, counting events received but not applied yet.
    const lastSeq = () => pending.reduce((max, e) => Math.max(max, e.seq), live.lastSeq)

    socket.on('connect', () => {
      setStatus('live')
      // A refused join (a malformed id, a failed read) means no live events: show it (the record is
      // still polled).
      socket.emit(socketEvents.jobJoin, { kind: 'run', id: runId, lastSeq: lastSeq() }, (reply) => {
        if (!reply.ok) setStatus('offline')
      })
    })
    socket.on('disconnect', () => setStatus('offline'))
    socket.on('connect_error', () => setStatus('offline'))
    socket.on(socketEvents.jobEvent, (payload) => {
      // Validated when applied (per type); here only the envelope, cheaply.
      const parsed = serverEventSchemas[socketEvents.jobEvent].safeParse(payload)
      if (!parsed.success || parsed.data.kind !== 'run' || parsed.data.id !== runId) return
      pending.push(parsed.data)
      if (frame === null) frame = requestAnimationFrame(flush)
    })
    return () => {
      if (frame !== null) cancelAnimationFrame(frame)
      if (renderTimer !== null) clearTimeout(renderTimer)
      socket.close()
    }
  }, [runId, queryClient, live])

  return { live, version, socket: status }
}

/**
 * `value` at most once per `ms` (leading and trailing): a view that is costly to redraw follows a
 * fast-changing version at a bounded rate, and always ends on the last value.
 */
export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value)
  const [last, setLast] = useState(0)
  useEffect(() => {
    if (Object.is(value, shown)) return
    const wait = last + ms - performance.now()
    if (wait <= 0) {
      setShown(value)
      setLast(performance.now())
      return
    }
    const timer = setTimeout(() => {
      setShown(value)
      setLast(performance.now())
    }, wait)
    return () => clearTimeout(timer)
  }, [value, shown, last, ms])
  return shown
}
