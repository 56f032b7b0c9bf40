import type { Evaluation } from '@codebook/shared'
import { Link, useLocation } from 'wouter'
import { isEvaluationActive } from '../api/evaluation-queries.ts'
import { ProgressBar } from '../components/progress-bar.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { formatDateTime } from '../lib/format.ts'
import { formatAccuracy } from './accuracy-chart.ts'
import { plannedVocabularies, vocabulariesText } from './evaluation-format.ts'

/** The evaluations table, newest first; a row opens the evaluation page. */
export function EvaluationTable(props: { evaluations: Evaluation[] }) {
  const [, navigate] = useLocation()
  if (props.evaluations.length === 0) {
    return (
      <div className="empty">
        <strong>No evaluations yet.</strong>
        <span>Start one with the form above.</span>
      </div>
    )
  }
  return (
    <div className="table-wrap">
      <table className="table table-clickable">
        <thead>
          <tr>
            <th>Evaluation</th>
            <th>Status</th>
            <th>Image set</th>
            <th>k</th>
            <th>Progress</th>
            <th className="right">Best accuracy</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {props.evaluations.map((e) => {
            const best = e.results.reduce<number | null>(
              (m, r) => (m === null || r.accuracy > m ? r.accuracy : m),
              null,
            )
            return (
              <tr key={e.id} data-evaluation-id={e.id} onClick={() => navigate(`/evaluations/${e.id}`)}>
                <td className="cell-name">
                  <Link href={`/evaluations/${e.id}`} onClick={(ev) => ev.stopPropagation()}>
                    {e.name}
                  </Link>
                </td>
                <td>
                  <div className="cell-status">
                    <StatusBadge status={e.status} />
                    {e.error && (
                      <span className="code-tag" title={e.error.message}>
                        {e.error.code}
                      </span>
                    )}
                  </div>
                </td>
                <td>{e.imageSetName}</td>
                <td className="num">{vocabulariesText(e.params)}</td>
                <td>
                  <div className="run-progress-cell">
                    <span className="num">
                      {e.results.length} / {plannedVocabularies(e.params)} vocabularies
                    </span>
                    {isEvaluationActive(e) && (
                      <ProgressBar
                        fraction={e.progress}
                        size="sm"
                        label={`Evaluation ${e.name} progress`}
                        showText={false}
                      />
                    )}
                  </div>
                </td>
                <td className="right num">{best === null ? '—' : formatAccuracy(best)}</td>
                <td className="muted nowrap">{formatDateTime(e.createdAt)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
