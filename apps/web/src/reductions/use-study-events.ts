import type { FollowedJob } from '../api/job-feed.ts'
import type { SocketStatus } from '../api/socket.ts'
import { studyKeys } from '../api/study-queries.ts'
import { useJobFeed } from '../api/use-job-feed.ts'
import { applyStudyEvent } from './study-events.ts'

/**
 * Feeds the events of the studies `jobs` into the query cache while the calling page is mounted
 * (see `useJobFeed`).
 */
export function useStudyEvents(jobs: readonly FollowedJob[]): SocketStatus {
  return useJobFeed('study', jobs, applyStudyEvent, studyKeys.studies)
}
