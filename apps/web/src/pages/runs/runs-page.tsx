import { useEffect, useState } from 'react'
import { Link } from 'wouter'
import { isRunActive, useDatasets, useRuns } from '../../api/queries.ts'
import { Pager, pageOf } from '../../components/pager.tsx'
import { compareHref } from '../../runs/run-compare.ts'
import { NewRunForm } from './new-run-form.tsx'
import { RunTable } from './run-table.tsx'
import './runs.css'

/** `/runs`: the new-run form and the table of runs. */
export function RunsPage() {
  const runs = useRuns()
  const datasets = useDatasets()
  const now = useNow(runs.data?.some(isRunActive) ?? false)
  const [page, setPage] = useState(0)
  const shown = pageOf(runs.data ?? [], page)
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set())
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s)
      if (!next.delete(id)) next.add(id)
      return next
    })
  // Keep the table's order (newest first) in the link.
  const picked = runs.data?.filter((r) => selected.has(r.id)).map((r) => r.id) ?? []
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
          <div className="compare-bar">
            {runs.data && <span className="card-subtitle num">{runs.data.length} total</span>}
            {picked.length >= 2 ? (
              <Link href={compareHref(picked)} className="btn btn-primary">
                Compare {picked.length} runs
              </Link>
            ) : (
              <button type="button" className="btn" disabled title="Tick two or more runs">
                Compare runs
              </button>
            )}
          </div>
        </div>
        {runs.isPending ? (
          <div className="loading">Loading runs…</div>
        ) : runs.data ? (
          <RunTable
            runs={shown.rows}
            datasets={datasets.data}
            now={now}
            selected={selected}
            onToggle={toggle}
          />
        ) : (
          <div className="empty">Could not load runs.</div>
        )}
        <Pager page={shown.page} pages={shown.pages} onPage={setPage} />
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
