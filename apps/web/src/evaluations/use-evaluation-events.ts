import { evaluationKeys } from '../api/evaluation-queries.ts'
import type { FollowedJob } from '../api/job-feed.ts'
import type { SocketStatus } from '../api/socket.ts'
import { useJobFeed } from '../api/use-job-feed.ts'
import { applyEvaluationEvent } from './evaluation-events.ts'

/**
 * Feeds the events of the evaluations `jobs` into the query cache while the calling page is mounted
 * (see `useJobFeed`).
 */
export function useEvaluationEvents(jobs: readonly FollowedJob[]): SocketStatus {
  return useJobFeed('evaluation', jobs, applyEvaluationEvent, evaluationKeys.evaluations)
}
