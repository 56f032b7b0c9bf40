import type { VocabularySummary } from '@codebook/shared'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { queryKeys } from './queries.ts'
import { deleteVocabulary, listVocabularies } from './vocabulary-client.ts'

/** Query keys of vocabularies. */
export const vocabularyKeys = {
  vocabularies: ['vocabularies'] as const,
}

/** Every vocabulary, newest first (new ones appear when runs succeed: refetched on focus). */
export function useVocabularies() {
  return useQuery({ queryKey: vocabularyKeys.vocabularies, queryFn: listVocabularies })
}

/** Deletes a vocabulary; drops it from the list and refreshes its run (which loses its `vocabularyId`). */
export function useDeleteVocabulary() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (v: VocabularySummary) => deleteVocabulary(v.id),
    onSuccess: (_void, v) => {
      queryClient.setQueryData<VocabularySummary[]>(vocabularyKeys.vocabularies, (list) =>
        list?.filter((x) => x.id !== v.id),
      )
      void queryClient.invalidateQueries({ queryKey: vocabularyKeys.vocabularies })
      void queryClient.invalidateQueries({ queryKey: queryKeys.run(v.runId) })
    },
  })
}
