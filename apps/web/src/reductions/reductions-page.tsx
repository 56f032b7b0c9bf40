import type { Study } from '@codebook/shared'
import { type FormEvent, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { useCreateStudy, useFollowedStudies, useStudies } from '../api/study-queries.ts'
import { ProgressBar } from '../components/progress-bar.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { formatDateTime } from '../lib/format.ts'
import { defaultRuns, defaultStudyForm, type StudyFormValues, validateStudyForm } from './study-form.ts'
import { useStudyEvents } from './use-study-events.ts'

const KIND_TEXT: Record<Study['kind'], string> = {
  reductions: 'Figure 3: makespan vs CV',
  grid: 'Figure 4: CV × μc/μd maps',
  markov: 'Section 3: Tree-dyn vs closed forms',
}

/**
 * `/reductions`: the discrete-event study of the four non-clairvoyant reductions (Benoit, Canon,
 * Marchal): a form to queue a study and the table of stored studies.
 */
export function ReductionsPage() {
  const socket = useStudyEvents(useFollowedStudies())
  const studies = useStudies(socket === 'live')
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Reductions</h1>
          <p className="page-subtitle">
            Binomial-stat, Fibonacci-stat, Tree-dyn and Non-Commut-Tree-dyn played on random gamma costs,
            oblivious to them: the model of “Non-Clairvoyant Reduction Algorithms for Heterogeneous
            Platforms”.
          </p>
        </div>
      </header>
      <NewStudyForm />
      <section className="card" aria-label="Studies">
        <div className="card-header">
          <h2>All studies</h2>
          {studies.data && <span className="card-subtitle num">{studies.data.length} total</span>}
        </div>
        {studies.isPending ? (
          <div className="loading">Loading studies…</div>
        ) : studies.data ? (
          <StudyTable studies={studies.data} />
        ) : (
          <div className="empty">Could not load studies.</div>
        )}
      </section>
    </div>
  )
}

const TEXT_FIELDS: { name: keyof StudyFormValues; label: string; hint?: string; kinds?: Study['kind'][] }[] =
  [
    { name: 'n', label: 'Processes n' },
    { name: 'runs', label: 'Runs' },
    { name: 'seed', label: 'Seed' },
    { name: 'cv', label: 'CVs', hint: '0.01, 0.1, 1, 10', kinds: ['reductions'] },
    { name: 'muC', label: 'μc (μd = 1)', hint: '0', kinds: ['reductions'] },
    { name: 'name', label: 'Study name', hint: 'optional' },
  ]

function NewStudyForm() {
  const [, navigate] = useLocation()
  const create = useCreateStudy()
  const [values, setValues] = useState<StudyFormValues>(defaultStudyForm)
  const [touched, setTouched] = useState(false)
  const result = validateStudyForm(values)
  const errors = result.ok ? {} : result.errors
  const shown = (name: keyof StudyFormValues) =>
    touched || values[name] !== defaultStudyForm[name] ? errors[name] : undefined

  function onSubmit(e: FormEvent) {
    e.preventDefault()
    setTouched(true)
    if (!result.ok) return
    create.mutate(result.input, { onSuccess: (s) => navigate(`/reductions/${s.id}`) })
  }

  return (
    <section className="card" aria-label="New study">
      <div className="card-header">
        <h2>New study</h2>
        <span className="card-subtitle">
          gamma costs with mean μd = 1 (communication) and μc (computation), one CV for both
        </span>
      </div>
      <form onSubmit={onSubmit} noValidate>
        <div className="run-form">
          <div className="field">
            <label htmlFor="study-kind">Study</label>
            <select
              id="study-kind"
              value={values.kind}
              onChange={(e) => {
                const kind = e.target.value as Study['kind']
                setValues((v) => ({ ...v, kind, runs: defaultRuns[kind] }))
              }}
            >
              {(Object.keys(KIND_TEXT) as Study['kind'][]).map((k) => (
                <option key={k} value={k}>
                  {KIND_TEXT[k]}
                </option>
              ))}
            </select>
          </div>
          {TEXT_FIELDS.filter((f) => f.kinds === undefined || f.kinds.includes(values.kind)).map((f) => (
            <div className="field" key={f.name}>
              <label htmlFor={`study-${f.name}`}>
                {f.name === 'runs' ? runsLabel(values.kind) : f.label}
              </label>
              <input
                id={`study-${f.name}`}
                name={f.name}
                value={values[f.name]}
                placeholder={f.hint}
                aria-invalid={shown(f.name) ? true : undefined}
                onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
              />
              {shown(f.name) && <span className="field-error">{shown(f.name)}</span>}
            </div>
          ))}
        </div>
        <div className="run-form-actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={create.isPending || (touched && !result.ok)}
          >
            {create.isPending ? 'Starting…' : 'Start study'}
          </button>
          {create.error && (
            <span className="field-error" role="alert">
              {create.error.message}
            </span>
          )}
        </div>
      </form>
    </section>
  )
}

function runsLabel(kind: Study['kind']): string {
  return kind === 'reductions' ? 'Runs per CV × μc' : kind === 'grid' ? 'Runs per cell (221 cells)' : 'Runs'
}

function StudyTable(props: { studies: Study[] }) {
  const [, navigate] = useLocation()
  if (props.studies.length === 0) {
    return (
      <div className="empty">
        <strong>No studies yet.</strong>
        <span>Start one with the form above.</span>
      </div>
    )
  }
  return (
    <div className="table-wrap">
      <table className="table table-clickable">
        <thead>
          <tr>
            <th>Study</th>
            <th>Status</th>
            <th>Kind</th>
            <th className="right">n</th>
            <th>Progress</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {props.studies.map((s) => (
            <tr key={s.id} data-study-id={s.id} onClick={() => navigate(`/reductions/${s.id}`)}>
              <td className="cell-name">
                <Link href={`/reductions/${s.id}`} onClick={(ev) => ev.stopPropagation()}>
                  {s.name}
                </Link>
              </td>
              <td>
                <div className="cell-status">
                  <StatusBadge status={s.status} />
                  {s.error && (
                    <span className="code-tag" title={s.error.message}>
                      {s.error.code}
                    </span>
                  )}
                </div>
              </td>
              <td>{KIND_TEXT[s.kind]}</td>
              <td className="num right">{s.params.n}</td>
              <td>
                <ProgressBar
                  fraction={s.status === 'succeeded' ? 1 : s.progress}
                  label={`Progress of ${s.name}`}
                  size="sm"
                />
              </td>
              <td>{formatDateTime(s.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
