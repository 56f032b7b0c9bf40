import type { VocabularySummary } from '@codebook/shared'
import { useEffect, useRef } from 'react'
import { useDeleteVocabulary } from '../api/vocabulary-queries.ts'
import { formatCount } from '../lib/format.ts'

/** A modal confirm for deleting one vocabulary; closes when done or cancelled (Escape cancels too). */
export function DeleteVocabularyDialog(props: { vocabulary: VocabularySummary; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  const remove = useDeleteVocabulary()
  const v = props.vocabulary
  useEffect(() => {
    ref.current?.showModal()
  }, [])
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="delete-vocabulary-title"
      onClose={props.onClose}
    >
      <h2 id="delete-vocabulary-title">
        Delete the vocabulary of run {v.runId.slice(0, 8)} (k = {formatCount(v.k)})?
      </h2>
      <p>
        Its {formatCount(v.k)} centroids and any cached assignments are removed from the server. Run{' '}
        <span className="num">{v.runId.slice(0, 8)}</span> stays in the list, without a vocabulary. This
        cannot be undone.
      </p>
      <div className="confirm-actions">
        <button
          type="button"
          className="btn"
          onClick={() => ref.current?.close()}
          disabled={remove.isPending}
        >
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-danger-outline"
          disabled={remove.isPending}
          onClick={() => remove.mutate(v, { onSettled: () => ref.current?.close() })}
        >
          {remove.isPending ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </dialog>
  )
}
