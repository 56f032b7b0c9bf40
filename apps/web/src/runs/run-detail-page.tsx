import { assignmentFormats, type Run, vocabularyExportFormats } from '@codebook/shared'
import { useMemo, useState } from 'react'
import { Link } from 'wouter'
import { isRunActive, useCancelRun, useRun } from '../api/queries.ts'
import { assignmentsHref } from '../api/vocabulary-client.ts'
import { Breadcrumb } from '../components/breadcrumb.tsx'
import { ProgressBar } from '../components/progress-bar.tsx'
import { StatCard } from '../components/stat-card.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { formatCount, formatDateTime, formatDuration } from '../lib/format.ts'
import { approximateSummary } from './approximate-summary.ts'
import { formatInertia, runDurationSeconds } from './run-format.ts'
import { RunInertiaChart } from './run-inertia-chart.tsx'
import { DeleteRunDialog, RunLabelsCard } from './run-labels.tsx'
import { RunLaunchCard } from './run-launch-card.tsx'
import { progressView } from './run-live.ts'
import { RunLogPanel } from './run-log-panel.tsx'
import { isRunResumable, useResumeRun } from './run-mutations.ts'
import { runStopReason } from './run-outcome.ts'
import { RunSources } from './run-sources.tsx'
import { RunStageChart } from './run-stage-chart.tsx'
import { useNow } from './runs-page.tsx'
import { useRunEvents, useThrottled } from './use-run-events.ts'
import { WorkerTable } from './worker-table.tsx'
import './runs.css'

/**
 * Spacing of the charts' and the worker table's redraws while iterations stream in: 4 per second,
 * 2 per second past {@link HEAVY_VIEW_SLOW_AFTER} iterations (a redraw's cost grows with the bars).
 */
const HEAVY_VIEW_MS = 250
const HEAVY_VIEW_SLOW_AFTER = 250

/**
 * `/runs/:id`: status, parameters, progress (phase and ETA), live stage and inertia charts, the last
 * iteration's per-worker detail, the log, cancel / resume and the vocabulary's exports.
 */
export function RunDetailPage(props: { id: string }) {
  const run = useRun(props.id)
  const { live, version, socket } = useRunEvents(props.id)
  // Events are applied every frame; the costly views follow at a bounded rate.
  const heavyVersion = useThrottled(
    version,
    live.count > HEAVY_VIEW_SLOW_AFTER ? 2 * HEAVY_VIEW_MS : HEAVY_VIEW_MS,
  )
  // biome-ignore lint/correctness/useExhaustiveDependencies: the report changes with the throttled version
  const lastReport = useMemo(() => live.lastReport, [live, heavyVersion])
  const r = run.data
  const now = useNow(r ? isRunActive(r) : false)

  if (!r) {
    return (
      <div className="page">
        <Breadcrumb href="/runs" label="Runs" />
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
  const lastIteration = Math.max(r.iteration, live.iteration.at(live.count - 1) ?? 0)
  const active = isRunActive(r)
  const progress = progressView(live, lastIteration, r.params.maxIterations)
  const meanMs = live.meanIterationMs
  const lastInertia = live.inertia.at(live.count - 1)
  const lastFraction = live.distanceFraction.at(live.count - 1)
  // A run that stopped before maxIterations on its tol rule is complete, not 54 % done.
  const converged = runStopReason({ ...r, iteration: lastIteration }) === 'converged'

  return (
    <div className="page">
      <Breadcrumb href="/runs" label="Runs" />
      <RunHeader run={r} />
      {r.error && (
        <div className="card empty">
          <span className="code-tag">{r.error.code}</span> {r.error.message}
        </div>
      )}
      <section className="card" aria-label="Progress">
        <div className="run-progress">
          <div className="run-progress-line">
            <span className="num">
              {active && progress.phase && progress.phase !== 'iterating' && (
                <span className="run-phase" data-testid="run-phase">
                  {progress.phase}
                  {progress.message ? ` — ${progress.message}` : ''} ·{' '}
                </span>
              )}
              <span data-testid="run-iteration">
                Iteration {lastIteration} / {r.params.maxIterations}
              </span>
              {converged && <span data-testid="run-converged"> · converged</span>}
            </span>
            <span className="num" data-testid="run-eta">
              {active
                ? progress.etaSeconds !== null
                  ? `ETA ${progress.phase ? '' : '≤ '}${formatDuration(progress.etaSeconds)}`
                  : 'ETA after the first iteration'
                : ''}
              {socket !== 'live' && active ? ' · events offline' : ''}
            </span>
          </div>
          <ProgressBar
            fraction={
              active
                ? progress.fraction
                : r.status === 'succeeded'
                  ? 1
                  : lastIteration / r.params.maxIterations
            }
            label={active && progress.phase ? `Run ${progress.phase}` : 'Iterations'}
          />
        </div>
        <div className="stat-grid">
          <StatCard label="Inertia" value={formatInertia(lastInertia ?? r.inertia)} />
          <StatCard label="Mean iteration" value={meanMs === null ? '—' : `${meanMs.toFixed(1)} ms`} />
          <StatCard label="Duration" value={formatDuration(runDurationSeconds(r, now))} />
          <StatCard
            label="Reassigned (last)"
            value={formatCount(live.reassigned.at(live.count - 1))}
            hint={
              [
                lastFraction !== undefined && !Number.isNaN(lastFraction)
                  ? `distance fraction ${lastFraction.toFixed(3)}`
                  : '',
                approximateSummary(lastReport) ?? '',
              ]
                .filter(Boolean)
                .join(' · ') || undefined
            }
          />
        </div>
        <Params run={r} />
      </section>
      <RunLabelsCard run={r} />
      <RunLaunchCard run={r} />
      {r.status === 'succeeded' && r.vocabularyId && <VocabularyCard vocabularyId={r.vocabularyId} />}

      <section className="card" aria-label="Stage times">
        <div className="card-header">
          <h2>Stage times per iteration</h2>
          <span className="card-subtitle">
            critical path (slowest worker) per stage · hover a bar for bytes and the slowest worker
          </span>
        </div>
        {live.count === 0 ? (
          <div className="empty">No iteration finished yet.</div>
        ) : (
          <RunStageChart live={live} version={heavyVersion} />
        )}
      </section>
      <section className="card" aria-label="Convergence">
        <div className="card-header">
          <h2>Convergence</h2>
          <span className="card-subtitle">
            inertia{live.hasDistanceFraction ? ' and distance fraction (distances evaluated ÷ n·k)' : ''}
            {live.hasAssignmentRecall
              ? '; approximate assignment recall (sampled points at an exact nearest centroid)'
              : ''}
          </span>
        </div>
        {live.count === 0 ? (
          <div className="empty">No iteration finished yet.</div>
        ) : (
          <RunInertiaChart live={live} version={heavyVersion} />
        )}
      </section>
      {lastReport && (
        <section className="card" aria-label="Workers">
          <div className="card-header">
            <h2>Workers — iteration {lastReport.iteration}</h2>
            <span className="card-subtitle">the last iteration; earlier ones: hover the stage chart</span>
          </div>
          <WorkerTable report={lastReport} />
          <p className="muted">
            ▲ marks the worker on the critical path of each stage. Bytes are sent bytes over all stages.
          </p>
        </section>
      )}
      <section className="card" aria-label="Log">
        <div className="card-header">
          <h2>Log</h2>
          <span className="card-subtitle num">{live.logs.length} lines</span>
        </div>
        <RunLogPanel lines={live.logs} count={live.logs.length} />
      </section>
    </div>
  )
}

function RunHeader(props: { run: Run }) {
  const r = props.run
  const cancel = useCancelRun()
  const resume = useResumeRun()
  const [deleting, setDeleting] = useState(false)
  return (
    <header className="page-header">
      <div>
        <h1 className="with-badge">
          {r.name ? (
            <span data-testid="run-name">{r.name}</span>
          ) : (
            <>
              Run <span className="num">{r.id.slice(0, 8)}</span>
            </>
          )}{' '}
          <StatusBadge status={r.status} />
        </h1>
        <p className="page-subtitle">
          <RunSources run={r} /> · k = {r.params.k} · created {formatDateTime(r.createdAt)}
        </p>
      </div>
      <div className="run-actions">
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
        {isRunResumable(r) && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={resume.isPending}
            title={`Continue from the checkpoint of iteration ${r.checkpointIteration}`}
            onClick={() => resume.mutate(r.id)}
          >
            {resume.isPending ? 'Resuming…' : `Resume from iteration ${r.checkpointIteration}`}
          </button>
        )}
        <Link
          href={`/runs?cloneOf=${encodeURIComponent(r.id)}`}
          className="btn"
          title="Open the run form with this run's settings"
        >
          Run again
        </Link>
        <button type="button" className="btn btn-danger-outline" onClick={() => setDeleting(true)}>
          Delete…
        </button>
        {deleting && <DeleteRunDialog run={r} onClose={() => setDeleting(false)} />}
      </div>
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
    ['reduction', p.reduction],
    // An approximate run searches an index or walks the centroid graph; its `algorithm` is unused.
    ['assignment', p.assignment === 'approximate' ? `approximate (${p.approximateSearch})` : 'exact'],
    ['algorithm', p.assignment === 'approximate' ? '—' : p.algorithm],
    ['init', p.init],
    ['encoding', p.encoding],
    ['partials', p.partials],
    ...(p.assignment === 'approximate' && p.hnsw
      ? Object.entries(p.hnsw).map(([key, value]): [string, string | number] => [
          `hnsw ${key}`,
          String(value),
        ])
      : []),
    ['kernel', p.kernel],
    ['seed', p.seed],
    ['launcher', p.launcher ?? 'local'],
    [
      'topology',
      p.topologyId === undefined ? 'none' : `${p.topologyId.slice(0, 8)} v${p.topologyVersion ?? 'latest'}`,
    ],
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
        {/* Each vector's word: computed by the server on the first download, then cached. */}
        {assignmentFormats.map((f) => (
          <a key={`assignments-${f}`} className="btn" href={assignmentsHref(id, f)} download>
            assignments.{f}
          </a>
        ))}
        <Link href="/vocabularies" className="btn btn-ghost">
          All vocabularies
        </Link>
      </div>
    </section>
  )
}
