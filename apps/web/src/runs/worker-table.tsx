import { type IterationReport, stageNames } from '@codebook/shared'
import { memo } from 'react'
import { formatBytes, formatCount } from '../lib/format.ts'
import { criticalWorkers } from './run-events.ts'
import { formatInertia } from './run-format.ts'

/**
 * Per-worker detail of one iteration: host and rack, time per stage (the worker on the critical path of each stage
 * is marked), bytes sent within the rack and across racks over all stages, and the worker's peak memory so far.
 */
export const WorkerTable = memo(function WorkerTable(props: { report: IterationReport }) {
  const { report } = props
  const critical = criticalWorkers(report)
  return (
    <div className="table-wrap">
      <table className="table table-compact" data-testid="worker-table">
        <thead>
          <tr>
            <th className="right">Rank</th>
            <th>Host</th>
            <th>Rack</th>
            <th className="right">Points</th>
            {stageNames.map((s) => (
              <th key={s} className="right">
                {s} ms
              </th>
            ))}
            <th className="right">Intra-rack</th>
            <th className="right">Cross-rack</th>
            <th className="right">Inertia</th>
            <th className="right">Reassigned</th>
            <th className="right" title="Peak resident set of the worker's process so far">
              Peak memory
            </th>
          </tr>
        </thead>
        <tbody>
          {report.workers.map((w) => {
            let intra = 0
            let cross = 0
            for (const s of stageNames) {
              intra += w.stages[s]?.intraRackBytes ?? 0
              cross += w.stages[s]?.crossRackBytes ?? 0
            }
            return (
              <tr key={w.rank}>
                <td className="right num">{w.rank}</td>
                <td className="num">{w.host ?? '—'}</td>
                <td className="num nowrap">{w.rack}</td>
                <td className="right num">{formatCount(w.points)}</td>
                {stageNames.map((s) => {
                  // A stage that shows as 0.0 ms everywhere has no meaningful critical path.
                  const isCritical =
                    critical[s] === w.rank && report.workers.length > 1 && (w.stages[s]?.ms ?? 0) >= 0.05
                  return (
                    <td
                      key={s}
                      className={`right num${isCritical ? ' cell-critical' : ''}`}
                      title={isCritical ? `Critical path of ${s}` : undefined}
                    >
                      {(w.stages[s]?.ms ?? 0).toFixed(1)}
                      {isCritical ? ' ▲' : ''}
                    </td>
                  )
                })}
                <td className="right num">{formatBytes(intra)}</td>
                <td className="right num">{formatBytes(cross)}</td>
                <td className="right num">{formatInertia(w.inertia)}</td>
                <td className="right num">{formatCount(w.reassigned)}</td>
                <td className="right num" data-testid="worker-max-rss">
                  {w.maxRssBytes === undefined ? '—' : formatBytes(w.maxRssBytes)}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
})
