import type { Evaluation, ImageSet } from '@codebook/shared'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { INLINE_ERROR } from '../components/inline-error.tsx'
import type { ImageSetUploadQuery } from '../evaluations/image-set-form.ts'
import {
  cancelEvaluation,
  createEvaluation,
  getEvaluation,
  listEvaluations,
  listImageSets,
  uploadImageSet,
} from './evaluation-client.ts'
import type { FollowedJob } from './job-feed.ts'

/** Query keys of image sets and evaluations, shared by hooks and the socket feed. */
export const evaluationKeys = {
  imageSets: ['image-sets'] as const,
  evaluations: ['evaluations'] as const,
  evaluation: (id: string) => ['evaluations', id] as const,
  /** The latest `progress` event of an evaluation (phase and message), fed by the socket only. */
  live: (id: string) => ['evaluations', id, 'live'] as const,
}

/** Whether an evaluation may still change. */
export function isEvaluationActive(e: Pick<Evaluation, 'status'>): boolean {
  return e.status === 'queued' || e.status === 'running'
}

// The socket is the live feed; polling is the fallback. With the socket down, poll briskly so the
// bar still moves; with it up, a slow poll only guards against a missed state event.
const POLL_OFFLINE_MS = 1_500
const POLL_LIVE_MS = 5_000

/** Every image set; polls while one is processing. */
export function useImageSets() {
  return useQuery({
    queryKey: evaluationKeys.imageSets,
    queryFn: listImageSets,
    refetchInterval: (query) =>
      query.state.data?.some((s) => s.status === 'processing') ? POLL_OFFLINE_MS : false,
  })
}

/** Every evaluation; polls while one is queued or running. */
export function useEvaluations(socketLive: boolean) {
  return useQuery({
    queryKey: evaluationKeys.evaluations,
    queryFn: listEvaluations,
    refetchInterval: (query) =>
      query.state.data?.some(isEvaluationActive) ? (socketLive ? POLL_LIVE_MS : POLL_OFFLINE_MS) : false,
  })
}

/** The jobs a page follows: the queued or running ones, from the seq each record was read at. */
function followedEvaluations(list: Evaluation[]): FollowedJob[] {
  return list.filter(isEvaluationActive).map((e) => ({ id: e.id, lastEventSeq: e.lastEventSeq }))
}

/**
 * The listed evaluations that are queued or running: the ones the list page follows live. A
 * second observer of the list (no polling of its own), so the page can follow them before it
 * chooses the list's poll rate from the feed's status.
 */
export function useFollowedEvaluations(): FollowedJob[] {
  return (
    useQuery({ queryKey: evaluationKeys.evaluations, queryFn: listEvaluations, select: followedEvaluations })
      .data ?? []
  )
}

/**
 * Evaluation `id` while it is queued or running (an ended one has no more events), once its record
 * is read: a second observer of the detail query, as {@link useFollowedEvaluations} is of the list.
 */
export function useFollowedEvaluation(id: string): FollowedJob[] {
  return (
    useQuery({
      queryKey: evaluationKeys.evaluation(id),
      queryFn: () => getEvaluation(id),
      select: (e: Evaluation) => followedEvaluations([e]),
    }).data ?? []
  )
}

/** One evaluation; polls while it is active (faster when the socket is down). */
export function useEvaluation(id: string, socketLive: boolean) {
  const queryClient = useQueryClient()
  return useQuery({
    queryKey: evaluationKeys.evaluation(id),
    queryFn: () => getEvaluation(id),
    initialData: () =>
      queryClient.getQueryData<Evaluation[]>(evaluationKeys.evaluations)?.find((e) => e.id === id),
    initialDataUpdatedAt: () => queryClient.getQueryState(evaluationKeys.evaluations)?.dataUpdatedAt,
    refetchInterval: (query) =>
      query.state.data && isEvaluationActive(query.state.data)
        ? socketLive
          ? POLL_LIVE_MS
          : POLL_OFFLINE_MS
        : false,
  })
}

/** Uploads an image set (raw body) and refreshes the list. */
export function useUploadImageSet() {
  const queryClient = useQueryClient()
  return useMutation({
    // The form shows a refusal at its field (GRID_MISMATCH at the cell size) or under its button.
    meta: INLINE_ERROR,
    mutationFn: (v: { query: ImageSetUploadQuery; file: Blob }) => uploadImageSet(v.query, v.file),
    onSuccess: (set) => {
      queryClient.setQueryData<ImageSet[]>(evaluationKeys.imageSets, (list) =>
        list ? [set, ...list.filter((s) => s.id !== set.id)] : [set],
      )
      void queryClient.invalidateQueries({ queryKey: evaluationKeys.imageSets })
    },
  })
}

/** Queues an evaluation and refreshes the list. */
export function useCreateEvaluation() {
  const queryClient = useQueryClient()
  return useMutation({
    // The form shows a refusal under its button.
    meta: INLINE_ERROR,
    mutationFn: createEvaluation,
    onSuccess: (evaluation) => {
      queryClient.setQueryData(evaluationKeys.evaluation(evaluation.id), evaluation)
      void queryClient.invalidateQueries({ queryKey: evaluationKeys.evaluations, exact: true })
    },
  })
}

/** Cancels an evaluation and refreshes it. */
export function useCancelEvaluation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: cancelEvaluation,
    onSuccess: (evaluation) => queryClient.setQueryData(evaluationKeys.evaluation(evaluation.id), evaluation),
    onSettled: (_evaluation, _err, id) => {
      void queryClient.invalidateQueries({ queryKey: evaluationKeys.evaluations, exact: true })
      void queryClient.invalidateQueries({ queryKey: evaluationKeys.evaluation(id), exact: true })
    },
  })
}
