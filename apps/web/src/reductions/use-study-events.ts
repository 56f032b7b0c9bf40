import { socketEvents } from '@codebook/shared'
import type { SocketStatus } from '../api/socket.ts'
import { studyKeys } from '../api/study-queries.ts'
import { useEventFeed } from '../api/use-event-feed.ts'
import { applyStudyEvent } from './study-events.ts'

/** Feeds `study:event`s into the query cache while the calling page is mounted (see `useEventFeed`). */
export function useStudyEvents(): SocketStatus {
  return useEventFeed(socketEvents.studyEvent, applyStudyEvent, studyKeys.studies)
}
