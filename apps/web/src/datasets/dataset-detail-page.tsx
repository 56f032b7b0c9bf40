import type { Dataset, DatasetPreview } from '@codebook/shared'
import { Link, useLocation } from 'wouter'
import { useDataset, useDatasetPreview, useDeleteDataset, useRuns } from '../api/queries.ts'
import { useVocabularies } from '../api/vocabulary-queries.ts'
import { Breadcrumb } from '../components/breadcrumb.tsx'
import { ProgressBar } from '../components/progress-bar.tsx'
import { StatCard } from '../components/stat-card.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import {
  countOf,
  decimalsFor,
  formatBytes,
  formatCount,
  formatDateTime,
  formatFixed,
  formatValue,
} from '../lib/format.ts'
import { datasetDeleteQuestion } from './delete-confirm.ts'
import { DimensionRangeChart } from './dimension-range-chart.tsx'
import { NormHistogramChart } from './norm-histogram-chart.tsx'
import { browserErrorMessage, clusterDatasetHref } from './upload-advice.ts'

// Columns of vector values the preview shows before the ellipsis; enough to eyeball, narrow enough to fit.
const PREVIEW_VALUES = 12

/** `/datasets/:id`: status, statistics, charts and preview rows of one dataset. */
export function DatasetDetailPage(props: { id: string }) {
  const dataset = useDataset(props.id)
  const d = dataset.data
  const preview = useDatasetPreview(props.id, d?.status === 'ready')

  return (
    <div className="page">
      <Breadcrumb href="/datasets" label="Datasets" current={d?.name ?? props.id} />
      {!d ? (
        <div className="card">
          <div className={dataset.isPending ? 'loading' : 'empty'}>
            {dataset.isPending ? 'Loading dataset…' : 'This dataset does not exist (any more).'}
          </div>
        </div>
      ) : (
        <>
          <DetailHeader dataset={d} />
          {d.status === 'failed' && (
            <div className="notice notice-error" role="alert">
              <div>
                <strong>Processing failed</strong>{' '}
                <span className="code-tag">{d.error?.code ?? 'UNKNOWN'}</span>
                <div className="notice-detail">
                  {d.error ? browserErrorMessage(d.error) : 'The server gave no reason.'}
                </div>
              </div>
            </div>
          )}
          {d.status === 'processing' && (
            <section className="card">
              <div className="card-header">
                <h2>Processing</h2>
                <span className="card-subtitle">Parsing, validating and storing as .npy</span>
              </div>
              <ProgressBar fraction={d.progress} label={`Processing ${d.name}`} />
            </section>
          )}
          <MadeFromDataset datasetId={d.id} />
          {d.status === 'ready' && preview.data && <ReadyDetail dataset={d} preview={preview.data} />}
          {d.status === 'ready' && preview.isPending && (
            <div className="card loading">Loading statistics…</div>
          )}
        </>
      )}
    </div>
  )
}

function DetailHeader(props: { dataset: Dataset }) {
  const d = props.dataset
  const [, navigate] = useLocation()
  const remove = useDeleteDataset()
  const runs = useRuns()
  function onDelete() {
    if (!window.confirm(datasetDeleteQuestion(d, runs.data ?? []))) return
    remove.mutate(d.id, { onSuccess: () => navigate('/datasets') })
  }
  return (
    <header className="page-header">
      <div>
        <h1 className="with-badge">
          {d.name} <StatusBadge status={d.status} />
        </h1>
        <p className="page-subtitle num">
          {d.id} · created {formatDateTime(d.createdAt)}
        </p>
      </div>
      <div className="header-actions">
        {d.status === 'ready' && (
          <Link className="btn btn-primary" href={clusterDatasetHref(d.id)}>
            Cluster this dataset
          </Link>
        )}
        <button
          type="button"
          className="btn btn-danger-outline"
          onClick={onDelete}
          disabled={remove.isPending || d.status === 'processing'}
        >
          {remove.isPending ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </header>
  )
}

/**
 * The runs that clustered this dataset and the vocabularies they learned, newest first (the
 * runs list filtered here: every page of `GET /api/runs` is already in the cache).
 */
function MadeFromDataset(props: { datasetId: string }) {
  const runs = useRuns()
  const vocabularies = useVocabularies()
  const mine = (runs.data ?? []).filter((r) => r.datasetId === props.datasetId)
  const words = (vocabularies.data ?? []).filter((v) => v.datasetId === props.datasetId)
  return (
    <section className="card" aria-label="Made from this dataset">
      <div className="card-header">
        <h2>Made from this dataset</h2>
        <span className="card-subtitle num">
          {countOf(mine.length, 'run')} · {countOf(words.length, 'vocabulary', 'vocabularies')}
        </span>
      </div>
      {runs.isPending ? (
        <div className="loading">Loading runs…</div>
      ) : mine.length === 0 ? (
        <div className="empty">No run has clustered it yet.</div>
      ) : (
        <div className="table-wrap">
          <table className="table table-compact" aria-label="Runs of this dataset">
            <thead>
              <tr>
                <th>Run</th>
                <th>Status</th>
                <th className="right">k</th>
                <th className="right">Iterations</th>
                <th>Vocabulary</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {mine.map((r) => {
                const v = words.find((x) => x.runId === r.id)
                return (
                  <tr key={r.id} data-run-id={r.id}>
                    <td className="cell-name">
                      <Link href={`/runs/${r.id}`}>{r.name ?? r.id.slice(0, 8)}</Link>
                    </td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td className="right num">{formatCount(r.params.k)}</td>
                    <td className="right num">{formatCount(r.iteration)}</td>
                    <td className="num">
                      {v ? (
                        <Link href="/vocabularies" data-vocabulary-id={v.id}>
                          k {formatCount(v.k)} × d {formatCount(v.d)}
                        </Link>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td className="muted nowrap">{formatDateTime(r.createdAt)}</td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

function ReadyDetail(props: { dataset: Dataset; preview: DatasetPreview }) {
  const { stats, rows } = props.preview
  const shown = Math.min(PREVIEW_VALUES, stats.d)
  const valueDecimals = decimalsFor(rows.flatMap((r) => r.values.slice(0, shown)))
  const normDecimals = decimalsFor(stats.norms.quantiles.map((q) => q.value))
  return (
    <>
      <div className="stat-grid">
        <StatCard label="Vectors (n)" value={formatCount(stats.n)} />
        <StatCard label="Dimensions (d)" value={formatCount(stats.d)} />
        <StatCard label="dtype" value={stats.dtype} />
        <StatCard
          label="Format"
          value={stats.format}
          hint={stats.hasIds ? 'with picture/row/col ids' : 'no ids'}
        />
        <StatCard label="Source size" value={formatBytes(props.dataset.sourceBytes || stats.bytes)} />
      </div>
      {stats.notes !== undefined && stats.notes.length > 0 && (
        <section className="card" aria-label="Import notes">
          <div className="card-header">
            <h2>Import notes</h2>
            <span className="card-subtitle">what the import converted</span>
          </div>
          <ul className="notes">
            {stats.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </section>
      )}

      <div className="grid-2">
        <section className="card">
          <div className="card-header">
            <h2>Norm distribution</h2>
            <span className="card-subtitle">‖x‖₂ histogram</span>
          </div>
          <NormHistogramChart histogram={stats.norms.histogram} />
        </section>
        <section className="card">
          <div className="card-header">
            <h2>Norm quantiles</h2>
          </div>
          <table className="table table-compact">
            <thead>
              <tr>
                <th>q</th>
                <th className="right">‖x‖₂</th>
              </tr>
            </thead>
            <tbody>
              {stats.norms.quantiles.map((q) => (
                <tr key={q.q}>
                  <td className="num">
                    {q.q === 0 ? 'min' : q.q === 1 ? 'max' : `p${formatValue(q.q * 100)}`}
                  </td>
                  <td className="right num">{formatFixed(q.value, normDecimals)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>

      <section className="card">
        <div className="card-header">
          <h2>Per-dimension range</h2>
          <span className="card-subtitle">min, mean and max of each component</span>
        </div>
        <DimensionRangeChart dims={stats.dims} />
      </section>

      <section className="card" aria-label="Preview rows">
        <div className="card-header">
          <h2>First rows</h2>
          <span className="card-subtitle num">
            {rows.length} of {formatCount(stats.n)} rows · {shown} of {stats.d} values
          </span>
        </div>
        <div className="table-wrap">
          <table className="table table-compact table-preview">
            <thead>
              <tr>
                <th className="right">#</th>
                {stats.hasIds && <th>ids (pic, row, col)</th>}
                {Array.from({ length: shown }, (_, j) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are dimension indices
                  <th key={j} className="right">
                    {j}
                  </th>
                ))}
                {stats.d > shown && <th aria-label="more values">…</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.index} data-row-index={r.index}>
                  <td className="right num muted">{r.index}</td>
                  {stats.hasIds && (
                    <td className="num">
                      {r.ids === null ? '—' : [r.picture ?? r.ids[0], ...r.ids.slice(1)].join(' ')}
                    </td>
                  )}
                  {r.values.slice(0, shown).map((v, j) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: cells are dimension indices
                    <td key={j} className="right num">
                      {formatFixed(v, valueDecimals)}
                    </td>
                  ))}
                  {stats.d > shown && <td className="muted">…</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  )
}
