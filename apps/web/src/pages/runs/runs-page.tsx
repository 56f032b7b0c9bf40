import { useEffect, useState } from 'react'
import { isRunActive, useDatasets, useRuns } from '../../api/queries.ts'
import { NewRunForm } from './new-run-form.tsx'
import { RunTable } from './run-table.tsx'

/** `/runs`: the new-run form and the table of runs. */
export function RunsPage() {
  const runs = useRuns()
  const datasets = useDatasets()
  const now = useNow(runs.data?.some(isRunActive) ?? false)
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Runs</h1>
          <p className="page-subtitle">K-means runs over a dataset: start, watch, cancel.</p>
        </div>
      </header>
      <NewRunForm datasets={datasets.data} />
      <section className="card" aria-label="Runs">
        <div className="card-header">
          <h2>All runs</h2>
          {runs.data && <span className="card-subtitle num">{runs.data.length} total</span>}
        </div>
        {runs.isPending ? (
          <div className="loading">Loading runs…</div>
        ) : runs.data ? (
          <RunTable runs={runs.data} datasets={datasets.data} now={now} />
        ) : (
          <div className="empty">Could not load runs.</div>
        )}
      </section>
    </div>
  )
}

/** The current time, ticking every second while `ticking` (running durations grow). */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!ticking) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [ticking])
  return now
}
