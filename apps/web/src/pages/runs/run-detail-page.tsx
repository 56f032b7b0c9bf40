import { type Run, vocabularyExportFormats } from '@codebook/shared'
import { useMemo, useState } from 'react'
import { Link } from 'wouter'
import { isRunActive, useCancelRun, useDatasets, useRun } from '../../api/queries.ts'
import { RunInertiaChart } from '../../charts/run-inertia-chart.tsx'
import { RunStageChart } from '../../charts/run-stage-chart.tsx'
import { ProgressBar } from '../../components/progress-bar.tsx'
import { StatCard } from '../../components/stat-card.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { formatCount, formatDateTime, formatDuration } from '../../lib/format.ts'
import { etaSeconds, iterationMs, toStageSeries } from '../../runs/run-events.ts'
import { useRunEvents } from '../../runs/use-run-events.ts'
import { formatInertia, runDurationSeconds } from './run-format.ts'
import { useNow } from './runs-page.tsx'
import { WorkerTable } from './worker-table.tsx'

/** `/runs/:id`: status, parameters, progress, live stage and inertia charts, per-worker detail. */
export function RunDetailPage(props: { id: string }) {
  const run = useRun(props.id)
  const { state, socket } = useRunEvents(props.id)
  const reports = state.iterations
  const series = useMemo(() => toStageSeries(reports), [reports])
  // Up to thousands of options: built once per change of the reports, not on every render.
  const iterationOptions = useMemo(
    () =>
      reports.map((x, i) => (
        <option key={x.iteration} value={i}>
          {x.iteration}
        </option>
      )),
    [reports],
  )
  // null: follow the last iteration as new ones arrive.
  const [selected, setSelected] = useState<number | null>(null)
  const r = run.data
  const now = useNow(r ? isRunActive(r) : false)

  if (!r) {
    return (
      <div className="page">
        <Breadcrumb />
        <div className="card">
          {run.isPending ? (
            <div className="loading">Loading run…</div>
          ) : (
            <div className="empty">Run not found.</div>
          )}
        </div>
      </div>
    )
  }
  const selectedIndex = selected !== null && selected < reports.length ? selected : reports.length - 1
  const selectedReport = reports[selectedIndex]
  const lastIteration = Math.max(r.iteration, reports.at(-1)?.iteration ?? 0)
  const eta = isRunActive(r) ? etaSeconds(reports, r.params.maxIterations) : null
  const meanMs = reports.length > 0 ? reports.reduce((t, x) => t + iterationMs(x), 0) / reports.length : null

  return (
    <div className="page">
      <Breadcrumb />
      <RunHeader run={r} />
      {r.error && (
        <div className="card empty">
          <span className="code-tag">{r.error.code}</span> {r.error.message}
        </div>
      )}
      <section className="card" aria-label="Progress">
        <div className="run-progress">
          <div className="run-progress-line">
            <span className="num" data-testid="run-iteration">
              Iteration {lastIteration} / {r.params.maxIterations}
            </span>
            <span className="num">
              {eta !== null
                ? `ETA ≤ ${formatDuration(eta)}`
                : isRunActive(r)
                  ? 'ETA after the first iteration'
                  : ''}
              {socket !== 'live' && isRunActive(r) ? ' · events offline' : ''}
            </span>
          </div>
          <ProgressBar fraction={lastIteration / r.params.maxIterations} label="Iterations" />
        </div>
        <div className="stat-grid">
          <StatCard label="Inertia" value={formatInertia(reports.at(-1)?.inertia ?? r.inertia)} />
          <StatCard label="Mean iteration" value={meanMs === null ? '—' : `${meanMs.toFixed(1)} ms`} />
          <StatCard label="Duration" value={formatDuration(runDurationSeconds(r, now))} />
          <StatCard
            label="Reassigned (last)"
            value={formatCount(reports.at(-1)?.reassigned)}
            hint={
              reports.at(-1)?.distanceFraction !== undefined
                ? `distance fraction ${reports.at(-1)?.distanceFraction?.toFixed(3)}`
                : undefined
            }
          />
        </div>
        <Params run={r} />
      </section>
      {r.status === 'succeeded' && r.vocabularyId && <VocabularyCard vocabularyId={r.vocabularyId} />}

      <section className="card" aria-label="Stage times">
        <div className="card-header">
          <h2>Stage times per iteration</h2>
          <span className="card-subtitle">
            critical path (slowest worker) per stage · click a bar to inspect it
          </span>
        </div>
        {reports.length === 0 ? (
          <div className="empty">No iteration finished yet.</div>
        ) : (
          <RunStageChart series={series} onSelect={setSelected} />
        )}
      </section>
      <section className="card" aria-label="Convergence">
        <div className="card-header">
          <h2>Convergence</h2>
          <span className="card-subtitle">
            inertia{series.hasDistanceFraction ? ' and distance fraction (distances evaluated ÷ n·k)' : ''}
          </span>
        </div>
        {reports.length === 0 ? (
          <div className="empty">No iteration finished yet.</div>
        ) : (
          <RunInertiaChart series={series} />
        )}
      </section>
      {selectedReport && (
        <section className="card" aria-label="Workers">
          <div className="card-header">
            <h2>Workers — iteration {selectedReport.iteration}</h2>
            <div className="toolbar">
              <label htmlFor="iteration-select" className="muted">
                Iteration
              </label>
              <select
                id="iteration-select"
                value={selected === null ? 'last' : String(selectedIndex)}
                onChange={(e) => setSelected(e.target.value === 'last' ? null : Number(e.target.value))}
              >
                <option value="last">last ({reports.at(-1)?.iteration})</option>
                {iterationOptions}
              </select>
            </div>
          </div>
          <WorkerTable report={selectedReport} />
          <p className="muted">
            ▲ marks the worker on the critical path of each stage. Bytes are sent bytes over all stages.
          </p>
        </section>
      )}
    </div>
  )
}

function Breadcrumb() {
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <Link href="/runs">Runs</Link>
    </nav>
  )
}

function RunHeader(props: { run: Run }) {
  const r = props.run
  const cancel = useCancelRun()
  const datasets = useDatasets()
  const dataset = datasets.data?.find((d) => d.id === r.datasetId)
  return (
    <header className="page-header">
      <div>
        <h1 className="with-badge">
          Run <span className="num">{r.id.slice(0, 8)}</span> <StatusBadge status={r.status} />
        </h1>
        <p className="page-subtitle">
          <Link href={`/datasets/${r.datasetId}`}>{dataset?.name ?? r.datasetId}</Link> · k = {r.params.k} ·
          created {formatDateTime(r.createdAt)}
        </p>
      </div>
      {isRunActive(r) && (
        <button
          type="button"
          className="btn btn-danger-outline"
          disabled={cancel.isPending}
          onClick={() => cancel.mutate(r.id)}
        >
          {cancel.isPending ? 'Cancelling…' : 'Cancel run'}
        </button>
      )}
    </header>
  )
}

function Params(props: { run: Run }) {
  const p = props.run.params
  const rows: [string, string | number][] = [
    ['k', p.k],
    ['max iterations', p.maxIterations],
    ['workers', p.workers],
    ['slots', p.slots],
    ['tol', p.tol],
    ['broadcast', p.broadcast],
    ['chain order', p.chainOrder],
    ['aggregation', p.aggregation],
    ['algorithm', p.algorithm],
    ['kernel', p.kernel],
    ['seed', p.seed],
  ]
  return (
    <dl className="params">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  )
}

function VocabularyCard(props: { vocabularyId: string }) {
  const id = props.vocabularyId
  return (
    <section className="card" aria-label="Vocabulary">
      <div className="card-header">
        <h2>Vocabulary</h2>
        <span className="card-subtitle num" data-testid="vocabulary-id">
          {id}
        </span>
      </div>
      <div className="export-links">
        {vocabularyExportFormats.map((f) => (
          <a
            key={f}
            className="btn"
            href={`/api/vocabularies/${encodeURIComponent(id)}/export?format=${f}`}
            download
          >
            {f}
          </a>
        ))}
      </div>
    </section>
  )
}
