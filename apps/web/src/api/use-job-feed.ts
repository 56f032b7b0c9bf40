import { type JobKind, type JobSocketEvent, socketEvents } from '@codebook/shared'
import { type QueryClient, type QueryKey, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { type FollowedJob, JobFeed } from './job-feed.ts'
import { openEventSocket, type SocketStatus } from './socket.ts'

/**
 * Follows the `jobs` of one kind while the calling page is mounted: joins each over the page's
 * own socket (`forceNew`: closing it on unmount must not end the app's dataset feed) from the
 * record's `lastEventSeq`, rejoins them from their last seq on every reconnect, leaves jobs that
 * drop out of `jobs`, and feeds each
 * `job:event` into the query cache with `apply` (see {@link JobFeed}). On every (re)connect
 * `catchUp` (the page's list) is invalidated too: jobs not followed have no events to replay.
 * Returns the feed's status; pages poll faster while it is not `live`.
 */
export function useJobFeed(
  kind: JobKind,
  jobs: readonly FollowedJob[],
  apply: (queryClient: QueryClient, event: JobSocketEvent) => void,
  catchUp: QueryKey,
): SocketStatus {
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<SocketStatus>('connecting')
  const feedRef = useRef<JobFeed | null>(null)
  const jobsRef = useRef<FollowedJob[]>([])
  // Value keys: callers pass fresh arrays on every render.
  const jobsKey = JSON.stringify(
    jobs.map((j) => [j.id, j.lastEventSeq ?? 0]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  )
  const catchUpKey = JSON.stringify(catchUp)

  // Declared before the socket's effect so that a new socket starts with the current ids.
  useEffect(() => {
    jobsRef.current = (JSON.parse(jobsKey) as Array<[string, number]>).map(([id, lastEventSeq]) => ({
      id,
      lastEventSeq,
    }))
    feedRef.current?.follow(jobsRef.current)
  }, [jobsKey])

  useEffect(() => {
    const socket = openEventSocket(true)
    const feed = new JobFeed(
      kind,
      {
        join: (join, ack) => socket.emit(socketEvents.jobJoin, join, ack),
        leave: (leave) => socket.emit(socketEvents.jobLeave, leave),
      },
      (event) => apply(queryClient, event),
      setStatus,
    )
    feedRef.current = feed
    feed.follow(jobsRef.current)
    socket.on('connect', () => {
      feed.connected()
      void queryClient.invalidateQueries({ queryKey: JSON.parse(catchUpKey) as QueryKey })
    })
    socket.on('disconnect', () => feed.disconnected())
    socket.on('connect_error', () => feed.disconnected())
    socket.on(socketEvents.jobEvent, (payload) => feed.receive(payload))
    return () => {
      feedRef.current = null
      socket.close()
    }
  }, [kind, queryClient, apply, catchUpKey])

  return status
}
