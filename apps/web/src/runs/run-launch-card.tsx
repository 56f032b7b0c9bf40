import type { Run } from '@codebook/shared'
import { useState } from 'react'
import { countOf } from '../lib/format.ts'
import { runWaiting } from './run-waiting.ts'

/**
 * How a run's workers were started: for `join` and `slurm`, the command that joins the run (to
 * copy onto each worker host), the Slurm job ids, and each worker's host and rack.
 */
export function RunLaunchCard(props: { run: Run }) {
  const { launch, params } = props.run
  const [copied, setCopied] = useState(false)
  if (!launch || launch.launcher === 'local') return null
  const waiting = props.run.status === 'running' && launch.workers.length === 0
  const waitingFor = runWaiting(props.run)
  return (
    <section className="card" aria-label="Launch">
      <div className="card-header">
        <h2>Workers on hosts — {launch.launcher}</h2>
        <span className="card-subtitle">
          {waiting
            ? (waitingFor ?? `waiting for ${countOf(params.workers, 'worker')} to join`)
            : countOf(launch.workers.length, 'worker')}
        </span>
      </div>
      {/* Only while the run can still take a worker (a replacement too); the secret dies with the execution. */}
      {launch.joinCommand && launch.launcher === 'join' && props.run.status === 'running' && (
        <div className="join-command">
          <code data-testid="join-command">{launch.joinCommand}</code>{' '}
          <button
            type="button"
            className="btn"
            onClick={() =>
              void navigator.clipboard?.writeText(launch.joinCommand!).then(() => setCopied(true))
            }
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
          <p className="muted">
            Run it on each worker host (any means: ssh, a scheduler). A worker without this token is refused.
          </p>
        </div>
      )}
      {launch.slurmJobIds.length > 0 && (
        <p data-testid="slurm-jobs">
          Slurm job{launch.slurmJobIds.length === 1 ? '' : 's'}:{' '}
          <span className="num">{launch.slurmJobIds.join(', ')}</span>
          {launch.slurmJobIds.length > 1 ? ' (the first for the workers, then one per replacement)' : ''}
        </p>
      )}
      {launch.workers.length > 0 && (
        <div className="table-wrap">
          <table className="table table-compact" data-testid="launch-workers">
            <thead>
              <tr>
                <th className="right">Rank</th>
                <th>Host</th>
                <th>Rack</th>
              </tr>
            </thead>
            <tbody>
              {launch.workers.map((w) => (
                <tr key={w.rank}>
                  <td className="right num">{w.rank}</td>
                  <td className="num">{w.host}</td>
                  <td className="num">{w.rack}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
