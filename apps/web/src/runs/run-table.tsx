import type { Dataset, Run } from '@codebook/shared'
import { Link, useLocation } from 'wouter'
import { ProgressBar } from '../components/progress-bar.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { formatDateTime, formatDuration } from '../lib/format.ts'
import { formatInertia, runDurationSeconds } from './run-format.ts'
import { runStopReason } from './run-outcome.ts'
import { runWaiting } from './run-waiting.ts'

/** The runs table, newest first; a row opens the run page, its checkbox selects it for comparison. */
export function RunTable(props: {
  runs: Run[]
  datasets: Dataset[] | undefined
  now: number
  /** Runs ticked for comparison. */
  selected: ReadonlySet<string>
  onToggle: (id: string) => void
  /** A filter is set: an empty table says no run matches. */
  filtered?: boolean
}) {
  const [, navigate] = useLocation()
  if (props.runs.length === 0 && props.filtered) {
    return (
      <div className="empty" data-testid="runs-none-match">
        <strong>No run matches these filters.</strong>
      </div>
    )
  }
  if (props.runs.length === 0) {
    return (
      <div className="empty">
        <strong>No runs yet.</strong>
        <span>Start one with the form above.</span>
      </div>
    )
  }
  const names = new Map(props.datasets?.map((d) => [d.id, d.name]))
  return (
    <div className="table-wrap">
      <table className="table table-clickable">
        <thead>
          <tr>
            <th className="cell-select">
              <span className="sr-only">Compare</span>
            </th>
            <th>Run</th>
            <th>Status</th>
            <th>Dataset</th>
            <th className="right">k</th>
            <th>Iterations</th>
            <th className="right">Inertia</th>
            <th className="right">Duration</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {props.runs.map((r) => (
            <tr
              key={r.id}
              data-run-id={r.id}
              className={props.selected.has(r.id) ? 'row-highlight' : undefined}
              onClick={() => navigate(`/runs/${r.id}`)}
            >
              <td className="cell-select">
                <input
                  type="checkbox"
                  onClick={(e) => e.stopPropagation()}
                  aria-label={`Compare run ${r.name ?? r.id.slice(0, 8)}`}
                  checked={props.selected.has(r.id)}
                  onChange={() => props.onToggle(r.id)}
                />
              </td>
              <td className="cell-name num">
                <Link href={`/runs/${r.id}`} onClick={(e) => e.stopPropagation()}>
                  {r.name ?? r.id.slice(0, 8)}
                </Link>
                {(r.tags ?? []).length > 0 && (
                  <span className="run-tags">
                    {r.tags?.map((t) => (
                      <span key={t} className="code-tag run-tag">
                        {t}
                      </span>
                    ))}
                  </span>
                )}
              </td>
              <td>
                <div className="cell-status">
                  <StatusBadge status={r.status} />
                  {runStopReason(r) === 'converged' && (
                    <span className="code-tag tag-converged" title="Stopped on tol before max iterations">
                      converged
                    </span>
                  )}
                  {r.error && <span className="code-tag">{r.error.code}</span>}
                  {runWaiting(r) && (
                    <span className="muted" data-testid="run-waiting">
                      {runWaiting(r)}
                    </span>
                  )}
                </div>
              </td>
              <td>
                {names.get(r.datasetId) ??
                  (props.datasets ? (
                    <span className="muted" title={`dataset ${r.datasetId} was deleted`}>
                      <span className="num">{r.datasetId.slice(0, 8)}</span> (deleted)
                    </span>
                  ) : (
                    <span className="muted num">{r.datasetId.slice(0, 8)}</span>
                  ))}
              </td>
              <td className="right num">{r.params.k}</td>
              <td>
                <div className="run-progress-cell">
                  <span className="num">
                    {r.iteration} / {r.params.maxIterations}
                  </span>
                  {(r.status === 'running' || r.status === 'queued') && (
                    <ProgressBar
                      fraction={r.iteration / r.params.maxIterations}
                      size="sm"
                      label={`Run ${r.id} iterations`}
                      showText={false}
                    />
                  )}
                </div>
              </td>
              <td className="right num">{formatInertia(r.inertia)}</td>
              <td className="right num">{formatDuration(runDurationSeconds(r, props.now))}</td>
              <td className="muted nowrap">{formatDateTime(r.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
