import type { Evaluation, EvaluationKResult, EvaluationProgress } from '@codebook/shared'
import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { Link } from 'wouter'
import {
  evaluationKeys,
  isEvaluationActive,
  useCancelEvaluation,
  useEvaluation,
  useFollowedEvaluation,
} from '../api/evaluation-queries.ts'
import { useVocabularies } from '../api/vocabulary-queries.ts'
import { EChart } from '../charts/echart.tsx'
import { Breadcrumb } from '../components/breadcrumb.tsx'
import { ProgressBar } from '../components/progress-bar.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { formatDateTime } from '../lib/format.ts'
import { accuracyChartOption, formatAccuracy, perClassChartOption } from './accuracy-chart.ts'
import { confusionAccuracy } from './confusion.ts'
import { resultKey } from './evaluation-events.ts'
import { phaseText, plannedVocabularies, vocabulariesText } from './evaluation-format.ts'
import { storedVocabularyLeakage } from './leakage.ts'
import { useEvaluationEvents } from './use-evaluation-events.ts'
import './evaluations.css'
import { ConfusionTable } from './confusion-table.tsx'
import { MisclassifiedGallery } from './misclassified-gallery.tsx'

/**
 * `/evaluations/:id`: live progress, accuracy versus vocabulary size (log k), and for a chosen k
 * the per-class accuracy, the confusion matrix and the misclassified test images.
 */
export function EvaluationDetailPage(props: { id: string }) {
  const socket = useEvaluationEvents(useFollowedEvaluation(props.id))
  const evaluation = useEvaluation(props.id, socket === 'live')
  const e = evaluation.data

  if (!e) {
    return (
      <div className="page">
        <Breadcrumb href="/evaluations" label="Evaluation" />
        <div className="card">
          {evaluation.isPending ? (
            <div className="loading">Loading evaluation…</div>
          ) : (
            <div className="empty">
              <strong>Evaluation not found.</strong>
              <Link href="/evaluations">Back to evaluations</Link>
            </div>
          )}
        </div>
      </div>
    )
  }
  return (
    <div className="page">
      <Breadcrumb href="/evaluations" label="Evaluation" />
      <EvaluationHeader evaluation={e} />
      {e.error && (
        <div className="notice notice-error" role="alert">
          <span>
            <span className="code-tag">{e.error.code}</span> {e.error.message}
          </span>
        </div>
      )}
      <ProgressCard evaluation={e} socketLive={socket === 'live'} />
      <AccuracyCard evaluation={e} />
      <PerKSection evaluation={e} />
    </div>
  )
}

function EvaluationHeader(props: { evaluation: Evaluation }) {
  const e = props.evaluation
  const cancel = useCancelEvaluation()
  return (
    <header className="page-header">
      <div>
        <h1 className="with-badge">
          {e.name} <StatusBadge status={e.status} />
        </h1>
        <p className="page-subtitle">
          {e.imageSetName} · {e.classes.length} classes · k = {vocabulariesText(e.params)} · created{' '}
          {formatDateTime(e.createdAt)}
        </p>
      </div>
      {isEvaluationActive(e) && (
        <button
          type="button"
          className="btn btn-danger-outline"
          disabled={cancel.isPending}
          onClick={() => cancel.mutate(e.id)}
        >
          {cancel.isPending ? 'Cancelling…' : 'Cancel evaluation'}
        </button>
      )}
    </header>
  )
}

function ProgressCard(props: { evaluation: Evaluation; socketLive: boolean }) {
  const e = props.evaluation
  // The latest progress event (phase and message) lives beside the record, fed by the socket.
  const live = useQuery<EvaluationProgress | null>({
    queryKey: evaluationKeys.live(e.id),
    queryFn: () => null,
    enabled: false,
    initialData: null,
  }).data
  const active = isEvaluationActive(e)
  const text =
    e.status === 'queued'
      ? 'Queued — waiting for a free slot'
      : active
        ? live
          ? phaseText(live)
          : `Running — ${e.results.length} of ${plannedVocabularies(e.params)} vocabularies done`
        : e.status === 'succeeded'
          ? `Finished ${e.finishedAt ? formatDateTime(e.finishedAt) : ''}`
          : `Stopped (${e.status}) after ${e.results.length} of ${plannedVocabularies(e.params)} vocabularies`
  const p = e.params
  const rows: [string, string | number][] = [
    ['patch', `${p.patch} px`],
    ['stride', `${p.stride} px`],
    ['HOG cell', `${p.cell} px`],
    ['bins', p.bins],
    ['train share', p.split],
    ['seed', p.seed],
    ['images per class', p.limitPerClass ?? 'all'],
  ]
  return (
    <section className="card" aria-label="Progress">
      <div className="run-progress">
        <div className="run-progress-line">
          <span data-testid="evaluation-phase">{text}</span>
          <span className="num">
            {e.results.length} / {plannedVocabularies(e.params)} vocabularies
            {!props.socketLive && active ? ' · events offline, polling' : ''}
          </span>
        </div>
        <ProgressBar fraction={e.status === 'succeeded' ? 1 : e.progress} label="Evaluation progress" />
      </div>
      <dl className="params">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  )
}

function AccuracyCard(props: { evaluation: Evaluation }) {
  const e = props.evaluation
  const option = useMemo(
    () => accuracyChartOption(e.results, e.params.k, e.classes.length),
    [e.results, e.params.k, e.classes.length],
  )
  return (
    <section className="card" aria-label="Accuracy versus vocabulary size">
      <div className="card-header">
        <h2>Accuracy versus vocabulary size</h2>
        <span className="card-subtitle">
          test accuracy of the linear SVM per k (log scale); dashed: chance
        </span>
      </div>
      {e.results.length === 0 ? (
        <div className="empty">
          {isEvaluationActive(e)
            ? 'No vocabulary size finished yet — the first point appears when it does.'
            : 'No result.'}
        </div>
      ) : (
        <>
          <div data-testid="accuracy-chart" data-points={e.results.length}>
            <EChart option={option} height={300} label="Accuracy versus vocabulary size" />
          </div>
          <AccuracyTable results={e.results} />
        </>
      )}
      {(e.params.vocabularyIds ?? []).length > 0 && (
        <StoredVocabularyNote ids={e.params.vocabularyIds ?? []} />
      )}
    </section>
  )
}

/** The leakage warning beside results of stored vocabularies (learned outside this evaluation's split). */
function StoredVocabularyNote(props: { ids: readonly string[] }) {
  const vocabularies = useVocabularies()
  const chosen = (vocabularies.data ?? []).filter((v) => props.ids.includes(v.id))
  return (
    <div className="notice notice-warning" role="note" data-testid="vocabulary-leakage">
      <div>
        <strong>Stored vocabularies may have seen the test images.</strong> {storedVocabularyLeakage(chosen)}
      </div>
    </div>
  )
}

function AccuracyTable(props: { results: EvaluationKResult[] }) {
  return (
    <div className="table-wrap">
      <table className="table table-compact" aria-label="Accuracy per vocabulary size">
        <thead>
          <tr>
            <th className="right">k</th>
            <th className="right">Accuracy</th>
            <th className="right">Train / test images</th>
            <th className="right">Vocabulary</th>
            <th className="right">Encode</th>
            <th className="right">Train</th>
          </tr>
        </thead>
        <tbody>
          {props.results.map((r) => (
            <tr key={resultKey(r)} data-k={r.k} data-vocabulary-id={r.vocabularyId}>
              <td className="right num">
                {r.k}
                {r.vocabularyId !== undefined && (
                  <span className="muted" title="a stored vocabulary, evaluated as it is">
                    {' '}
                    (vocabulary {r.vocabularyId})
                  </span>
                )}
              </td>
              <td className="right num" data-testid="accuracy" data-accuracy={r.accuracy}>
                {formatAccuracy(r.accuracy)}
              </td>
              <td className="right num">
                {r.trainImages} / {r.testImages}
              </td>
              <td className="right num">{r.seconds.vocabulary.toFixed(1)} s</td>
              <td className="right num">{r.seconds.encode.toFixed(2)} s</td>
              <td className="right num">{r.seconds.train.toFixed(2)} s</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** Per-class accuracy, confusion matrix and misclassified images of one chosen k. */
function PerKSection(props: { evaluation: Evaluation }) {
  const e = props.evaluation
  // null: follow the latest finished k as new ones arrive.
  const [chosen, setChosen] = useState<string | null>(null)
  const result = e.results.find((r) => resultKey(r) === chosen) ?? e.results.at(-1)
  const perClassOption = useMemo(
    () => (result ? perClassChartOption(result.perClass, e.classes) : null),
    [result, e.classes],
  )
  if (!result || !perClassOption) {
    return (
      <section className="card" aria-label="Per vocabulary size">
        <div className="card-header">
          <h2>Per class</h2>
        </div>
        <div className="empty">
          Per-class accuracy, the confusion matrix and misclassified images appear as each k finishes.
        </div>
      </section>
    )
  }
  const wrong = result.testImages - Math.round((confusionAccuracy(result.confusion) ?? 0) * result.testImages)
  const selector = (
    <div className="toolbar">
      <label htmlFor="evaluation-k" className="muted">
        k
      </label>
      <select
        id="evaluation-k"
        value={chosen === null ? 'latest' : resultKey(result)}
        onChange={(ev) => setChosen(ev.target.value === 'latest' ? null : ev.target.value)}
      >
        <option value="latest">latest ({e.results.at(-1)?.k})</option>
        {e.results.map((r) => (
          <option key={resultKey(r)} value={resultKey(r)}>
            {r.k}
            {r.vocabularyId !== undefined ? ` (vocabulary ${r.vocabularyId})` : ''} —{' '}
            {formatAccuracy(r.accuracy)}
          </option>
        ))}
      </select>
    </div>
  )
  return (
    <>
      <section className="card" aria-label="Per-class accuracy">
        <div className="card-header">
          <h2>Per-class accuracy — k = {result.k}</h2>
          {selector}
        </div>
        <EChart option={perClassOption} height={240} label={`Per-class accuracy at k = ${result.k}`} />
      </section>
      <div className="eval-split">
        <section className="card" aria-label="Confusion matrix">
          <div className="card-header">
            <h2>Confusion matrix — k = {result.k}</h2>
            <span className="card-subtitle">counts; shade = share of the true class</span>
          </div>
          <ConfusionTable confusion={result.confusion} classes={e.classes} />
        </section>
        <section className="card" aria-label="Misclassified images">
          <div className="card-header">
            <h2>Misclassified — k = {result.k}</h2>
            <span className="card-subtitle num">
              {result.misclassified.length < wrong
                ? `first ${result.misclassified.length} of ${wrong} wrong`
                : `${wrong} wrong of ${result.testImages}`}
            </span>
          </div>
          <MisclassifiedGallery
            imageSetId={e.params.imageSetId}
            items={result.misclassified}
            classes={e.classes}
          />
        </section>
      </div>
    </>
  )
}
