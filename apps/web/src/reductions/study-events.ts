import type { JobSocketEvent, Study } from '@codebook/shared'
import type { QueryClient } from '@tanstack/react-query'
import { parseJobEvent } from '../api/parse-job-event.ts'
import { isStudyActive, studyKeys } from '../api/study-queries.ts'

/**
 * Applies one study's `job:event` to the react-query cache: `state` replaces the record (list and
 * detail), `progress` moves `progress` forward and keeps the message under `studyKeys.live(id)`,
 * `result` refetches the detail (rows are stored before they are announced). Another kind's events
 * and malformed ones are ignored (polling corrects anything missed). Returns whether it was applied.
 */
export function applyStudyEvent(queryClient: QueryClient, raw: JobSocketEvent): boolean {
  const event = parseJobEvent('study', raw)
  if (!event) return false
  const id = event.id
  if (event.type === 'state') {
    let known = false
    queryClient.setQueryData<Study[]>(studyKeys.studies, (list) =>
      list?.map((s) => {
        if (s.id !== id) return s
        known = true
        return event.data
      }),
    )
    queryClient.setQueryData(studyKeys.study(id), event.data)
    if (!known) void queryClient.invalidateQueries({ queryKey: studyKeys.studies, exact: true })
    return true
  }
  if (event.type === 'progress') {
    const data = event.data
    queryClient.setQueryData(studyKeys.live(id), data)
    const patch = (s: Study) =>
      isStudyActive(s) ? { ...s, progress: Math.max(s.progress, data.fraction) } : s
    queryClient.setQueryData<Study[]>(studyKeys.studies, (list) =>
      list?.map((s) => (s.id === id ? patch(s) : s)),
    )
    queryClient.setQueryData<Study>(studyKeys.study(id), (s) => (s ? patch(s) : s))
    return true
  }
  void queryClient.invalidateQueries({ queryKey: studyKeys.study(id), exact: true })
  return true
}
