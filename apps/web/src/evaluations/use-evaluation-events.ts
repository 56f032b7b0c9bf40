import { socketEvents } from '@codebook/shared'
import { evaluationKeys } from '../api/evaluation-queries.ts'
import type { SocketStatus } from '../api/socket.ts'
import { useEventFeed } from '../api/use-event-feed.ts'
import { applyEvaluationEvent } from './evaluation-events.ts'

/** Feeds `evaluation:event`s into the query cache while the calling page is mounted (see `useEventFeed`). */
export function useEvaluationEvents(): SocketStatus {
  return useEventFeed(socketEvents.evaluationEvent, applyEvaluationEvent, evaluationKeys.evaluations)
}
