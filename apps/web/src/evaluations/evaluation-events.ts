import type { Evaluation, EvaluationKResult, JobSocketEvent } from '@codebook/shared'
import type { QueryClient } from '@tanstack/react-query'
import { evaluationKeys } from '../api/evaluation-queries.ts'
import { parseJobEvent } from '../api/parse-job-event.ts'

/**
 * Identifies one result row: a stored vocabulary by its id (`v:ID`), a learned one by its k
 * (`16`, also the k selector's option value).
 */
export function resultKey(r: Pick<EvaluationKResult, 'k' | 'vocabularyId'>): string {
  return r.vocabularyId !== undefined ? `v:${r.vocabularyId}` : String(r.k)
}

/**
 * Adds one result to an evaluation's results, once (a result event can arrive after the
 * state or poll that already carried it). Results stay in the order of `params.k`, then
 * `params.vocabularyIds`.
 */
export function mergeResult(evaluation: Evaluation, result: EvaluationKResult): Evaluation {
  const key = resultKey(result)
  if (evaluation.results.some((r) => resultKey(r) === key)) return evaluation
  const { k: ks, vocabularyIds } = evaluation.params
  const order = (r: EvaluationKResult) => {
    const i =
      r.vocabularyId !== undefined ? ks.length + vocabularyIds.indexOf(r.vocabularyId) : ks.indexOf(r.k)
    return i === -1 || (r.vocabularyId !== undefined && i < ks.length) ? Number.MAX_SAFE_INTEGER : i
  }
  const results = [...evaluation.results, result].sort((a, b) => order(a) - order(b))
  return { ...evaluation, results }
}

/**
 * Applies one evaluation's `job:event` to the react-query cache: `state` replaces the record (list
 * and detail), `progress` moves `progress` forward and keeps the phase text under
 * `evaluationKeys.live(id)`, `result` appends the finished k. Another kind's events and malformed
 * ones are ignored (the polling fallback corrects anything missed). Returns whether it was applied.
 */
export function applyEvaluationEvent(queryClient: QueryClient, raw: JobSocketEvent): boolean {
  const event = parseJobEvent('evaluation', raw)
  if (!event) return false
  const id = event.id
  const patchBoth = (patch: (e: Evaluation) => Evaluation) => {
    queryClient.setQueryData<Evaluation[]>(evaluationKeys.evaluations, (list) =>
      list?.map((e) => (e.id === id ? patch(e) : e)),
    )
    queryClient.setQueryData<Evaluation>(evaluationKeys.evaluation(id), (e) => (e ? patch(e) : e))
  }
  if (event.type === 'state') {
    const next = event.data
    let known = false
    queryClient.setQueryData<Evaluation[]>(evaluationKeys.evaluations, (list) =>
      list?.map((e) => {
        if (e.id !== next.id) return e
        known = true
        return next
      }),
    )
    queryClient.setQueryData(evaluationKeys.evaluation(next.id), next)
    // One the cached list does not hold yet (it was created since): fetch the list again.
    if (!known) void queryClient.invalidateQueries({ queryKey: evaluationKeys.evaluations, exact: true })
    return true
  }
  if (event.type === 'progress') {
    const data = event.data
    queryClient.setQueryData(evaluationKeys.live(id), data)
    patchBoth((e) =>
      e.status === 'queued' || e.status === 'running'
        ? { ...e, progress: Math.max(e.progress, data.fraction) }
        : e,
    )
    return true
  }
  patchBoth((e) => mergeResult(e, event.data))
  return true
}
