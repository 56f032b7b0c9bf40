import type { Dataset } from '@codebook/shared'
import { type FormEvent, useState } from 'react'
import { useLocation } from 'wouter'
import { useCreateRun } from '../../api/queries.ts'
import { formatCount } from '../../lib/format.ts'
import { defaultRunForm, type RunFormValues, validateRunForm } from '../../runs/run-form.ts'

type TextField = 'k' | 'maxIterations' | 'workers' | 'slots' | 'tol' | 'seed' | 'kernel'

const TEXT_FIELDS: { name: TextField; label: string; hint?: string }[] = [
  { name: 'k', label: 'k (centroids)' },
  { name: 'maxIterations', label: 'Max iterations' },
  { name: 'workers', label: 'Workers' },
  { name: 'slots', label: 'Slots per worker' },
  { name: 'tol', label: 'tol' },
  { name: 'seed', label: 'Seed' },
  { name: 'kernel', label: 'Kernel', hint: 'onnx, reference, …' },
]

const CHOICES = {
  broadcast: ['chain', 'simple', 'mst', 'bucket'],
  aggregation: ['three-stage', 'direct', 'ring', 'allreduce'],
  algorithm: ['lloyd', 'hamerly', 'yinyang', 'auto'],
} as const

/** The "New run" form: ready datasets only, validated inline; a queued run opens its page. */
export function NewRunForm(props: { datasets: Dataset[] | undefined }) {
  const [, navigate] = useLocation()
  const create = useCreateRun()
  const [values, setValues] = useState<RunFormValues>(defaultRunForm)
  const [touched, setTouched] = useState(false)
  const ready = (props.datasets ?? []).filter((d) => d.status === 'ready')
  // Until the user picks one, the newest ready dataset is chosen.
  const datasetId = values.datasetId !== '' ? values.datasetId : (ready[0]?.id ?? '')
  const dataset = ready.find((d) => d.id === datasetId)
  const result = validateRunForm({ ...values, datasetId }, dataset?.n ?? null)
  const errors = result.ok ? {} : result.errors

  function set<K extends keyof RunFormValues>(key: K, value: RunFormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }))
  }
  function onSubmit(e: FormEvent) {
    e.preventDefault()
    setTouched(true)
    if (!result.ok) return
    create.mutate(result.input, { onSuccess: (run) => navigate(`/runs/${run.id}`) })
  }
  // k is checked as typed (it depends on the dataset); other fields once the form was submitted.
  const shown = (name: keyof RunFormValues) => (touched || name === 'k' ? errors[name] : undefined)

  return (
    <section className="card" aria-label="New run">
      <div className="card-header">
        <h2>New run</h2>
        <span className="card-subtitle">K-means on the Map-Collective runtime (k-means++ init)</span>
      </div>
      <form onSubmit={onSubmit} noValidate>
        <div className="run-form">
          <div className="field field-wide">
            <label htmlFor="run-dataset">Dataset</label>
            <select
              id="run-dataset"
              name="datasetId"
              value={datasetId}
              onChange={(e) => set('datasetId', e.target.value)}
            >
              {ready.length === 0 && <option value="">No ready dataset</option>}
              {ready.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} — n {formatCount(d.n)}, d {formatCount(d.d)}
                </option>
              ))}
            </select>
            {shown('datasetId') && <span className="field-error">{shown('datasetId')}</span>}
          </div>
          {TEXT_FIELDS.map((f) => (
            <div className="field" key={f.name}>
              <label htmlFor={`run-${f.name}`}>{f.label}</label>
              <input
                id={`run-${f.name}`}
                name={f.name}
                inputMode={f.name === 'tol' || f.name === 'kernel' ? 'text' : 'numeric'}
                value={values[f.name]}
                placeholder={f.hint}
                aria-invalid={shown(f.name) ? true : undefined}
                onChange={(e) => set(f.name, e.target.value)}
              />
              {shown(f.name) && <span className="field-error">{shown(f.name)}</span>}
            </div>
          ))}
          {(Object.keys(CHOICES) as (keyof typeof CHOICES)[]).map((name) => (
            <div className="field" key={name}>
              <label htmlFor={`run-${name}`}>{name[0]?.toUpperCase() + name.slice(1)}</label>
              <select
                id={`run-${name}`}
                name={name}
                value={values[name]}
                onChange={(e) => set(name, e.target.value as never)}
              >
                {CHOICES[name].map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </div>
          ))}
        </div>
        <div className="run-form-actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={create.isPending || ready.length === 0 || (touched && !result.ok) || !!errors.k}
          >
            {create.isPending ? 'Starting…' : 'Start run'}
          </button>
          {dataset && (
            <span className="muted">
              {dataset.name}: n = {formatCount(dataset.n)}, so 1 ≤ k ≤ {formatCount(dataset.n)}
            </span>
          )}
        </div>
      </form>
    </section>
  )
}
