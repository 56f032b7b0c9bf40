import type { ImageSet } from '@codebook/shared'
import { type FormEvent, useState } from 'react'
import { useLocation, useSearch } from 'wouter'
import { useCreateEvaluation } from '../api/evaluation-queries.ts'
import { useVocabularies } from '../api/vocabulary-queries.ts'
import { InlineError } from '../components/inline-error.tsx'
import { countOf } from '../lib/format.ts'
import {
  defaultEvaluationForm,
  type EvaluationFormValues,
  evaluationFormFromQuery,
  validateEvaluationForm,
} from './evaluation-form.ts'
import { storedVocabularyLeakage } from './leakage.ts'

type TextField = Exclude<keyof EvaluationFormValues, 'imageSetId' | 'vocabularyIds'>

const TEXT_FIELDS: { name: TextField; label: string; hint?: string; wide?: boolean }[] = [
  { name: 'ks', label: 'Vocabulary sizes k', hint: '16, 64, 256, 1024', wide: true },
  { name: 'patch', label: 'Patch (px)' },
  { name: 'stride', label: 'Stride (px)' },
  { name: 'split', label: 'Train share' },
  { name: 'seed', label: 'Seed' },
  { name: 'limitPerClass', label: 'Images per class', hint: 'all' },
  { name: 'name', label: 'Evaluation name', hint: 'optional' },
]

/** The "New evaluation" form: ready image sets only, validated as typed; a queued evaluation opens its page. */
export function NewEvaluationForm(props: { imageSets: ImageSet[] | undefined }) {
  const [, navigate] = useLocation()
  const create = useCreateEvaluation()
  // `?vocabulary=ID` (the Vocabularies page’s "Evaluate") selects a stored vocabulary; `?k=…` preselects sizes.
  const search = useSearch()
  const vocabularies = useVocabularies()
  const [values, setValues] = useState<EvaluationFormValues>(() => evaluationFormFromQuery(search))
  const [touched, setTouched] = useState(false)
  const ready = (props.imageSets ?? []).filter((s) => s.status === 'ready')
  // Until the user picks one, the newest ready image set is chosen.
  const imageSetId = values.imageSetId !== '' ? values.imageSetId : (ready[0]?.id ?? '')
  const imageSet = ready.find((s) => s.id === imageSetId)
  const side = imageSet?.grid ? Math.min(imageSet.grid.cellWidth, imageSet.grid.cellHeight) : null
  const known = vocabularies.data ?? []
  const result = validateEvaluationForm({ ...values, imageSetId }, side, known)
  const errors = result.ok ? {} : result.errors
  // A field's error shows once it differs from the default (typed in) or after a submit.
  const shown = (name: keyof EvaluationFormValues) =>
    touched ||
    name === 'vocabularyIds' ||
    (name !== 'imageSetId' && values[name] !== defaultEvaluationForm[name])
      ? errors[name]
      : undefined

  function set<K extends keyof EvaluationFormValues>(key: K, value: EvaluationFormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }))
  }
  function onSubmit(e: FormEvent) {
    e.preventDefault()
    setTouched(true)
    if (!result.ok) return
    create.mutate(result.input, { onSuccess: (ev) => navigate(`/evaluations/${ev.id}`) })
  }

  return (
    <section className="card" aria-label="New evaluation">
      <div className="card-header">
        <h2>New evaluation</h2>
        <span className="card-subtitle">
          dense HOG → k-means vocabulary per k → bag-of-words histograms → linear SVM (one-vs-rest)
        </span>
      </div>
      <form onSubmit={onSubmit} noValidate>
        <div className="run-form">
          <div className="field field-wide">
            <label htmlFor="evaluation-image-set">Image set</label>
            <select
              id="evaluation-image-set"
              value={imageSetId}
              onChange={(e) => set('imageSetId', e.target.value)}
            >
              {ready.length === 0 && <option value="">No ready image set</option>}
              {ready.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} — {s.count === null ? '?' : countOf(s.count, 'image')},{' '}
                  {s.classes ? countOf(s.classes.length, 'class', 'classes') : '? classes'}
                </option>
              ))}
            </select>
            {shown('imageSetId') && <span className="field-error">{shown('imageSetId')}</span>}
          </div>
          {values.vocabularyIds.length > 0 && (
            <div className="field field-wide" data-testid="evaluation-vocabularies">
              <span className="field-label">Stored vocabularies (evaluated as they are)</span>
              <ul className="selected-vocabularies">
                {values.vocabularyIds.map((id) => {
                  const v = known.find((x) => x.id === id)
                  return (
                    <li key={id} data-vocabulary-id={id}>
                      <span className="num">{id}</span>
                      {v ? (
                        <span className="muted">
                          {' '}
                          k {v.k}, d {v.d}
                        </span>
                      ) : (
                        <span className="muted">{vocabularies.isLoading ? ' loading…' : ' not found'}</span>
                      )}{' '}
                      <button
                        type="button"
                        className="btn btn-sm"
                        aria-label={`Remove vocabulary ${id}`}
                        onClick={() =>
                          set(
                            'vocabularyIds',
                            values.vocabularyIds.filter((x) => x !== id),
                          )
                        }
                      >
                        Remove
                      </button>
                    </li>
                  )
                })}
              </ul>
              {shown('vocabularyIds') && <span className="field-error">{shown('vocabularyIds')}</span>}
              <div className="notice notice-warning" role="note" data-testid="vocabulary-leakage">
                <div>
                  <strong>May have seen the test images.</strong>{' '}
                  {storedVocabularyLeakage(known.filter((v) => values.vocabularyIds.includes(v.id)))}
                </div>
              </div>
            </div>
          )}
          {TEXT_FIELDS.map((f) => (
            <div className={`field${f.wide ? ' field-wide' : ''}`} key={f.name}>
              <label htmlFor={`evaluation-${f.name}`}>{f.label}</label>
              <input
                id={`evaluation-${f.name}`}
                name={f.name}
                inputMode={
                  f.name === 'name' || f.name === 'ks' ? 'text' : f.name === 'split' ? 'decimal' : 'numeric'
                }
                value={values[f.name]}
                placeholder={f.hint}
                aria-invalid={shown(f.name) ? true : undefined}
                onChange={(e) => set(f.name, e.target.value)}
              />
              {shown(f.name) && <span className="field-error">{shown(f.name)}</span>}
            </div>
          ))}
        </div>
        <div className="run-form-actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={create.isPending || ready.length === 0 || (touched && !result.ok)}
          >
            {create.isPending ? 'Starting…' : 'Start evaluation'}
          </button>
          {imageSet && !create.isError && (
            <span className="muted">
              {imageSet.name}
              {side !== null ? `: ${side} px images, so 4 ≤ patch ≤ ${Math.min(256, side)}` : ''}
            </span>
          )}
        </div>
        <InlineError error={create.error} testId="evaluation-create-error" />
      </form>
    </section>
  )
}
