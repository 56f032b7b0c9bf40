import { useEffect, useMemo, useState } from 'react'
import { Link } from 'wouter'
import { isRunActive, useDatasets, useFilteredRuns } from '../api/queries.ts'
import { Pager, pageOf } from '../components/pager.tsx'
import { NewRunForm } from './new-run-form.tsx'
import { compareHref } from './run-compare.ts'
import { RunFilterBar } from './run-filter-bar.tsx'
import { emptyRunFilters, MAX_COMPARED_RUNS, type RunSort, runFiltersOf, sortRuns } from './run-filters.ts'
import { RunTable } from './run-table.tsx'
import './runs.css'

/** `/runs`: the new-run form and the table of runs (filtered by the server, sorted here; live through `run:changed`). */
export function RunsPage() {
  const [filterValues, setFilterValues] = useState(emptyRunFilters)
  const [sort, setSort] = useState<RunSort>('newest')
  const filters = useMemo(() => runFiltersOf(filterValues), [filterValues])
  const runs = useFilteredRuns(filters)
  const datasets = useDatasets()
  const now = useNow(runs.data?.some(isRunActive) ?? false)
  const [page, setPage] = useState(0)
  const sorted = useMemo(() => sortRuns(runs.data ?? [], sort), [runs.data, sort])
  const shown = pageOf(sorted, page)
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set())
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s)
      if (!next.delete(id)) next.add(id)
      return next
    })
  // Keep the table's order in the link.
  const picked = sorted.filter((r) => selected.has(r.id)).map((r) => r.id)
  const tooMany = picked.length > MAX_COMPARED_RUNS
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Runs</h1>
          <p className="page-subtitle">
            K-means runs over a dataset: start, watch, cancel; name, note, tag, compare and delete them.
          </p>
        </div>
      </header>
      <NewRunForm datasets={datasets.data} />
      <section className="card" aria-label="Runs">
        <div className="card-header">
          <h2>All runs</h2>
          <div className="compare-bar">
            {runs.data && (
              <span className="card-subtitle num" data-testid="runs-count">
                {runs.data.length} {Object.keys(filters).length > 0 ? 'matching' : 'total'}
              </span>
            )}
            {tooMany ? (
              <button type="button" className="btn" disabled>
                Compare at most {MAX_COMPARED_RUNS} runs ({picked.length} ticked)
              </button>
            ) : picked.length >= 2 ? (
              <Link href={compareHref(picked)} className="btn btn-primary">
                Compare {picked.length} runs
              </Link>
            ) : (
              <button type="button" className="btn" disabled title={`Tick 2 to ${MAX_COMPARED_RUNS} runs`}>
                Compare runs
              </button>
            )}
          </div>
        </div>
        <RunFilterBar
          values={filterValues}
          onChange={(v) => {
            setFilterValues(v)
            setPage(0)
          }}
          sort={sort}
          onSort={setSort}
          datasets={datasets.data}
        />
        {runs.isPending ? (
          <div className="loading">Loading runs…</div>
        ) : runs.data ? (
          <RunTable
            runs={shown.rows}
            datasets={datasets.data}
            now={now}
            selected={selected}
            onToggle={toggle}
            filtered={Object.keys(filters).length > 0}
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
