import { type Run, runLabelBounds, UpdateRun } from '@codebook/shared'
import { useEffect, useRef, useState } from 'react'
import { useLocation } from 'wouter'
import { runIterationsHref } from '../api/client.ts'
import { useDeleteRun, useUpdateRun } from '../api/queries.ts'
import { parseTags } from './run-filters.ts'

/**
 * The run as a research-log entry: name, notes and tags (`PATCH /api/runs/:id`), each refusal
 * shown at its field; the per-iteration downloads.
 */
export function RunLabelsCard(props: { run: Run }) {
  const r = props.run
  const update = useUpdateRun()
  const [name, setName] = useState(r.name ?? '')
  const [notes, setNotes] = useState(r.notes ?? '')
  const [tags, setTags] = useState((r.tags ?? []).join(', '))
  const [error, setError] = useState<string | null>(null)
  // Another tab's edit arrives with the record: the fields follow it.
  useEffect(() => {
    setName(r.name ?? '')
    setNotes(r.notes ?? '')
    setTags((r.tags ?? []).join(', '))
  }, [r.name, r.notes, r.tags])

  function save(e: React.FormEvent) {
    e.preventDefault()
    const body = UpdateRun.safeParse({ name: name.trim() === '' ? null : name, notes, tags: parseTags(tags) })
    if (!body.success) {
      setError(body.error.issues.map((i) => `${i.path.join('.') || 'labels'}: ${i.message}`).join('; '))
      return
    }
    setError(null)
    update.mutate(
      { id: r.id, labels: body.data },
      { onError: (err) => setError(err instanceof Error ? err.message : String(err)) },
    )
  }

  return (
    <section className="card" aria-label="Research log">
      <div className="card-header">
        <h2>Research log</h2>
        <div className="export-links">
          <span className="muted">Per-iteration metrics:</span>
          <a className="btn" href={runIterationsHref(r.id, 'csv')} download>
            iterations.csv
          </a>
          <a className="btn" href={runIterationsHref(r.id, 'json')} download>
            iterations.json
          </a>
        </div>
      </div>
      <form className="run-labels" onSubmit={save} aria-label="Name, notes and tags">
        <div className="field">
          <label htmlFor="run-name">Name</label>
          <input
            id="run-name"
            value={name}
            maxLength={200}
            placeholder="e.g. baseline k=64"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="run-tags">Tags (comma-separated)</label>
          <input
            id="run-tags"
            value={tags}
            placeholder="e.g. sweep, float16"
            onChange={(e) => setTags(e.target.value)}
          />
        </div>
        <div className="field field-wide">
          <label htmlFor="run-notes">Notes</label>
          <textarea
            id="run-notes"
            rows={3}
            value={notes}
            maxLength={runLabelBounds.notesChars}
            onChange={(e) => setNotes(e.target.value)}
          />
        </div>
        <div className="run-labels-actions">
          <button type="submit" className="btn btn-primary" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save'}
          </button>
          {update.isSuccess && !error && (
            <span className="muted" data-testid="labels-saved">
              Saved.
            </span>
          )}
          {error && (
            <span className="field-error" role="alert" data-testid="labels-error">
              {error}
            </span>
          )}
        </div>
      </form>
    </section>
  )
}

/**
 * The delete confirm: asks whether the run's vocabulary goes too (`vocabulary=keep|delete`); a
 * running run is cancelled first by the server. Goes back to the runs list once deleted.
 */
export function DeleteRunDialog(props: { run: Run; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  const remove = useDeleteRun()
  const [, navigate] = useLocation()
  const [error, setError] = useState<string | null>(null)
  const r = props.run
  const hasVocabulary = Boolean(r.vocabularyId)
  useEffect(() => {
    ref.current?.showModal()
  }, [])
  const run = (vocabulary: 'keep' | 'delete') =>
    remove.mutate(
      { id: r.id, vocabulary },
      {
        onSuccess: () => {
          ref.current?.close()
          navigate('/runs')
        },
        onError: (err) => setError(err instanceof Error ? err.message : String(err)),
      },
    )
  return (
    <dialog ref={ref} className="confirm-dialog" aria-labelledby="delete-run-title" onClose={props.onClose}>
      <h2 id="delete-run-title">Delete run {r.name ?? r.id.slice(0, 8)}?</h2>
      <p>
        {r.status === 'running' || r.status === 'queued' ? 'It is cancelled first. ' : ''}
        Its record, events, per-iteration metrics and checkpoints are removed from the server. This cannot be
        undone.
      </p>
      {hasVocabulary && (
        <p>
          It learned a vocabulary (<span className="num">{r.vocabularyId?.slice(0, 8)}</span>). Keep it (it
          stays under Vocabularies, with its exports and assignments) or delete it too?
        </p>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <div className="confirm-actions">
        <button
          type="button"
          className="btn"
          onClick={() => ref.current?.close()}
          disabled={remove.isPending}
        >
          Cancel
        </button>
        {hasVocabulary ? (
          <>
            <button
              type="button"
              className="btn btn-danger-outline"
              disabled={remove.isPending}
              onClick={() => run('keep')}
            >
              Delete run, keep vocabulary
            </button>
            <button
              type="button"
              className="btn btn-danger-outline"
              disabled={remove.isPending}
              onClick={() => run('delete')}
            >
              Delete run and vocabulary
            </button>
          </>
        ) : (
          <button
            type="button"
            className="btn btn-danger-outline"
            disabled={remove.isPending}
            onClick={() => run('delete')}
          >
            {remove.isPending ? 'Deleting…' : 'Delete run'}
          </button>
        )}
      </div>
    </dialog>
  )
}
