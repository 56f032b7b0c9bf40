import { Dataset, DatasetEvent } from '@codebook/shared'
import type { QueryClient } from '@tanstack/react-query'
import { queryKeys } from './queries.ts'

/**
 * Applies one `dataset:event` from the server to the react-query cache: progress events move the
 * progress bars, state events replace the record, deleted events drop it. Unknown or malformed events are ignored (the
 * polling fallback corrects anything missed). Returns whether the event was applied.
 */
export function applyDatasetEvent(queryClient: QueryClient, raw: unknown): boolean {
  const parsed = DatasetEvent.safeParse(raw)
  if (!parsed.success) return false
  const { datasetId, type, data } = parsed.data
  if (type === 'progress') {
    const fraction = typeof data.fraction === 'number' ? Math.min(1, Math.max(0, data.fraction)) : null
    if (fraction === null) return false
    const patch = (d: Dataset): Dataset =>
      d.id === datasetId && d.status === 'processing' ? { ...d, progress: Math.max(d.progress, fraction) } : d
    queryClient.setQueryData<Dataset[]>(queryKeys.datasets, (list) => list?.map(patch))
    queryClient.setQueryData<Dataset>(queryKeys.dataset(datasetId), (d) => (d ? patch(d) : d))
    return true
  }
  if (type === 'deleted') {
    queryClient.setQueryData<Dataset[]>(queryKeys.datasets, (list) => list?.filter((d) => d.id !== datasetId))
    queryClient.removeQueries({ queryKey: queryKeys.dataset(datasetId) })
    return true
  }
  const record = Dataset.safeParse(data)
  if (!record.success) {
    void queryClient.invalidateQueries({ queryKey: queryKeys.datasets })
    return false
  }
  const next = record.data
  let known = false
  queryClient.setQueryData<Dataset[]>(queryKeys.datasets, (list) =>
    list?.map((d) => {
      if (d.id !== next.id) return d
      known = true
      return next
    }),
  )
  queryClient.setQueryData(queryKeys.dataset(next.id), next)
  // A dataset we have not listed yet (created by another tab or the CLI): fetch the list again.
  if (!known) void queryClient.invalidateQueries({ queryKey: queryKeys.datasets, exact: true })
  return true
}
