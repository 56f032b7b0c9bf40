import type { Dataset, Run } from '@codebook/shared'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import {
  cancelRun,
  createRun,
  deleteDataset,
  deleteRun,
  getDataset,
  getDatasetPreview,
  getHealth,
  getRun,
  getRunIterations,
  getServerLimits,
  listDatasets,
  listRuns,
  type RunFilters,
  updateRun,
} from './client.ts'

/** Query keys, in one place so socket events and mutations update the same cache entries. */
export const queryKeys = {
  health: ['health'] as const,
  limits: ['limits'] as const,
  datasets: ['datasets'] as const,
  dataset: (id: string) => ['datasets', id] as const,
  preview: (id: string, rows: number) => ['datasets', id, 'preview', rows] as const,
  runs: ['runs'] as const,
  run: (id: string) => ['runs', id] as const,
  /** A filtered list (under `runs`, so invalidating `runs` refreshes it too). */
  runList: (filters: RunFilters) => ['runs', 'list', filters] as const,
  iterations: (id: string) => ['runs', id, 'iterations'] as const,
}

/** Rows the detail page previews. */
export const PREVIEW_ROWS = 20

// Socket events are the live feed; polling while something is processing is the fallback for a
// dropped socket, slow enough not to matter when the socket works.
const PROCESSING_POLL_MS = 2_000

/** Server health, re-checked every 15 s so the header notices a server that went away. */
export function useHealth() {
  return useQuery({ queryKey: queryKeys.health, queryFn: getHealth, refetchInterval: 15_000, retry: false })
}

/** The server's run limits and kernels (configuration: fixed while the server runs). */
export function useServerLimits() {
  return useQuery({ queryKey: queryKeys.limits, queryFn: getServerLimits, staleTime: 5 * 60_000 })
}

/** Every dataset; polls while any is still processing. */
export function useDatasets() {
  return useQuery({
    queryKey: queryKeys.datasets,
    queryFn: listDatasets,
    refetchInterval: (query) =>
      query.state.data?.some((d) => d.status === 'processing') ? PROCESSING_POLL_MS : false,
  })
}

/** One dataset; polls while it is processing. */
export function useDataset(id: string) {
  const queryClient = useQueryClient()
  return useQuery({
    queryKey: queryKeys.dataset(id),
    queryFn: () => getDataset(id),
    // Show the list's copy at once when the user clicks a row.
    initialData: () => queryClient.getQueryData<Dataset[]>(queryKeys.datasets)?.find((d) => d.id === id),
    initialDataUpdatedAt: () => queryClient.getQueryState(queryKeys.datasets)?.dataUpdatedAt,
    refetchInterval: (query) => (query.state.data?.status === 'processing' ? PROCESSING_POLL_MS : false),
  })
}

/** Preview rows and statistics of a ready dataset. */
export function useDatasetPreview(id: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.preview(id, PREVIEW_ROWS),
    queryFn: () => getDatasetPreview(id, PREVIEW_ROWS),
    enabled,
    staleTime: Number.POSITIVE_INFINITY, // a ready dataset never changes
  })
}

/** Deletes a dataset and drops it from the cache. */
export function useDeleteDataset() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteDataset,
    onSuccess: (_void, id) => {
      queryClient.setQueryData<Dataset[]>(queryKeys.datasets, (list) => list?.filter((d) => d.id !== id))
      queryClient.removeQueries({ queryKey: queryKeys.dataset(id) })
      void queryClient.invalidateQueries({ queryKey: queryKeys.datasets })
    },
  })
}

/** Whether a run may still change (the list and detail poll while one is). */
export function isRunActive(run: Run): boolean {
  return run.status === 'queued' || run.status === 'running'
}

/** Every run, newest first; polls while any is queued or running. */
export function useRuns() {
  return useQuery({
    queryKey: queryKeys.runs,
    queryFn: () => listRuns(),
    refetchInterval: (query) => (query.state.data?.some(isRunActive) ? PROCESSING_POLL_MS : false),
  })
}

/**
 * The runs matching `filters` (the server filters), newest first; the previous answer stays on
 * screen while a new filter loads. Refreshed by `run:changed` like every runs query.
 */
export function useFilteredRuns(filters: RunFilters) {
  return useQuery({
    queryKey: queryKeys.runList(filters),
    queryFn: () => listRuns(filters),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.some(isRunActive) ? PROCESSING_POLL_MS : false),
  })
}

/** A run's per-iteration metrics (json); for the compare page. */
export function useRunIterations(id: string, refresh: boolean) {
  return useQuery({
    queryKey: queryKeys.iterations(id),
    queryFn: () => getRunIterations(id),
    refetchInterval: refresh ? PROCESSING_POLL_MS : false,
  })
}

/** Sets a run's name, notes or tags; the answer replaces the cached run. */
export function useUpdateRun() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (v: { id: string; labels: Parameters<typeof updateRun>[1] }) => updateRun(v.id, v.labels),
    onSuccess: (run) => {
      queryClient.setQueryData(queryKeys.run(run.id), run)
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs })
    },
  })
}

/** Deletes a run (and its vocabulary unless kept) and drops it from the cache. */
export function useDeleteRun() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (v: { id: string; vocabulary: 'keep' | 'delete' }) => deleteRun(v.id, v.vocabulary),
    onSuccess: (_void, { id }) => {
      queryClient.removeQueries({ queryKey: queryKeys.run(id) })
      queryClient.setQueryData<Run[]>(queryKeys.runs, (list) => list?.filter((r) => r.id !== id))
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs })
      void queryClient.invalidateQueries({ queryKey: ['vocabularies'] })
    },
  })
}

/** One run; polls while it is queued or running (the socket feeds iterations, this the record). */
export function useRun(id: string) {
  const queryClient = useQueryClient()
  return useQuery({
    queryKey: queryKeys.run(id),
    queryFn: () => getRun(id),
    initialData: () => queryClient.getQueryData<Run[]>(queryKeys.runs)?.find((r) => r.id === id),
    initialDataUpdatedAt: () => queryClient.getQueryState(queryKeys.runs)?.dataUpdatedAt,
    refetchInterval: (query) =>
      query.state.data && isRunActive(query.state.data) ? PROCESSING_POLL_MS : false,
  })
}

/** Queues a run and refreshes the list. */
export function useCreateRun() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createRun,
    onSuccess: (run) => {
      queryClient.setQueryData(queryKeys.run(run.id), run)
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs })
    },
  })
}

/** Cancels a run and refreshes it. */
export function useCancelRun() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: cancelRun,
    onSettled: (_void, _err, id) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs })
      void queryClient.invalidateQueries({ queryKey: queryKeys.run(id) })
    },
  })
}
