import type { Study, StudyProgress } from '@codebook/shared'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { FollowedJob } from './job-feed.ts'
import { cancelStudy, createStudy, deleteStudy, getStudy, listStudies } from './study-client.ts'

/** Query keys of reduction studies, shared by hooks and the socket feed. */
export const studyKeys = {
  studies: ['studies'] as const,
  study: (id: string) => ['studies', id] as const,
  /** The latest `progress` event of a study (fraction and message), fed by the socket only. */
  live: (id: string) => ['studies', id, 'live'] as const,
}

/** Whether a study may still change. */
export function isStudyActive(s: Pick<Study, 'status'>): boolean {
  return s.status === 'queued' || s.status === 'running'
}

// The socket is the live feed; polling is the fallback (brisk while the socket is down).
const POLL_OFFLINE_MS = 1_500
const POLL_LIVE_MS = 5_000

/** Every study; polls while one is queued or running. */
export function useStudies(socketLive: boolean) {
  return useQuery({
    queryKey: studyKeys.studies,
    queryFn: listStudies,
    refetchInterval: (query) =>
      query.state.data?.some(isStudyActive) ? (socketLive ? POLL_LIVE_MS : POLL_OFFLINE_MS) : false,
  })
}

/** The jobs a page follows: the queued or running ones, from the seq each record was read at. */
function followedStudies(list: Study[]): FollowedJob[] {
  return list.filter(isStudyActive).map((s) => ({ id: s.id, lastEventSeq: s.lastEventSeq }))
}

/**
 * The listed studies that are queued or running: the ones the list page follows live. A second
 * observer of the list (no polling of its own), so the page can follow them before it chooses the
 * list's poll rate from the feed's status.
 */
export function useFollowedStudies(): FollowedJob[] {
  return useQuery({ queryKey: studyKeys.studies, queryFn: listStudies, select: followedStudies }).data ?? []
}

/**
 * Study `id` while it is queued or running (an ended one has no more events), once its record is
 * read: a second observer of the detail query, as {@link useFollowedStudies} is of the list.
 */
export function useFollowedStudy(id: string): FollowedJob[] {
  return (
    useQuery({
      queryKey: studyKeys.study(id),
      queryFn: () => getStudy(id),
      select: (s: Study) => followedStudies([s]),
    }).data ?? []
  )
}

/** One study; polls while it is active. */
export function useStudy(id: string, socketLive: boolean) {
  return useQuery({
    queryKey: studyKeys.study(id),
    queryFn: () => getStudy(id),
    refetchInterval: (query) =>
      query.state.data && isStudyActive(query.state.data)
        ? socketLive
          ? POLL_LIVE_MS
          : POLL_OFFLINE_MS
        : false,
  })
}

/** The latest progress message of a running study (socket only). */
export function useStudyLive(id: string) {
  return useQuery<StudyProgress | null>({
    queryKey: studyKeys.live(id),
    queryFn: () => null,
    staleTime: Number.POSITIVE_INFINITY,
  })
}

/** Queues a study and refreshes the list. */
export function useCreateStudy() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: createStudy,
    onSuccess: (study) => {
      queryClient.setQueryData(studyKeys.study(study.id), study)
      void queryClient.invalidateQueries({ queryKey: studyKeys.studies, exact: true })
    },
  })
}

/** Cancels a study and refreshes it. */
export function useCancelStudy() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: cancelStudy,
    onSuccess: (study) => queryClient.setQueryData(studyKeys.study(study.id), study),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: studyKeys.studies, exact: true }),
  })
}

/**
 * Deletes a study: drops it from the cached list at once (no event announces a deletion; the list
 * page would show it until its refetch answers) and refreshes the list.
 */
export function useDeleteStudy() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteStudy,
    onSuccess: (_v, id) =>
      queryClient.setQueryData<Study[]>(studyKeys.studies, (list) => list?.filter((s) => s.id !== id)),
    onSettled: (_v, _err, id) => {
      queryClient.removeQueries({ queryKey: studyKeys.study(id) })
      void queryClient.invalidateQueries({ queryKey: studyKeys.studies, exact: true })
    },
  })
}
