import type { Run } from '@codebook/shared'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { resumeRun } from '../api/client.ts'
import { queryKeys } from '../api/queries.ts'

/** Statuses `POST /api/runs/:id/resume` accepts (with a checkpoint). */
const RESUMABLE: readonly Run['status'][] = ['interrupted', 'cancelled', 'failed']

/** Whether the server would resume this run: a resumable status and a checkpoint to continue from. */
export function isRunResumable(run: Run): boolean {
  return RESUMABLE.includes(run.status) && (run.checkpointIteration ?? 0) > 0
}

/** Resumes a run and puts the queued record into the cache at once. */
export function useResumeRun() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: resumeRun,
    onSuccess: (run) => queryClient.setQueryData(queryKeys.run(run.id), run),
    onSettled: (_run, _err, id) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.runs })
      void queryClient.invalidateQueries({ queryKey: queryKeys.run(id) })
    },
  })
}
