import { type Run, type StageName, stageNames } from '@codebook/shared'
import { useQueries } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { Link, useSearch } from 'wouter'
import { getRun, listRunEvents } from '../api/client.ts'
import { isRunActive, queryKeys, useDatasets } from '../api/queries.ts'
import { Breadcrumb } from '../components/breadcrumb.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { formatCount } from '../lib/format.ts'
import {
  compareLabel,
  datasetMismatchWarning,
  diffParams,
  parseCompareIds,
  reduceMethod,
} from './run-compare.ts'
import { type CompareCurve, compareColors, RunCompareChart } from './run-compare-chart.tsx'
import { MAX_COMPARED_RUNS, runTitle } from './run-filters.ts'
import { formatInertia } from './run-format.ts'
import { RunLive } from './run-live.ts'
import './runs.css'

type Metric = 'total' | StageName

// Finished runs never change; an active one is re-read now and then (the compare page is not live).
const ACTIVE_REFRESH_MS = 5_000

/**
 * `/runs/compare?ids=a,b,c`: the stage time (total or one stage) and the inertia of 2 to
 * {@link MAX_COMPARED_RUNS} runs per iteration, one line per run, a summary table and their
 * parameters diffed. Each run's stored events are read once
 * (`GET /api/runs/:id/events`) into a {@link RunLive}.
 */
export function RunComparePage() {
  const asked = parseCompareIds(useSearch())
  const ids = asked.slice(0, MAX_COMPARED_RUNS)
  const [metric, setMetric] = useState<Metric>('total')
  const results = useQueries({
    queries: ids.map((id) => ({
      queryKey: [...queryKeys.run(id), 'compare'] as const,
      queryFn: async () => {
        const [run, events] = await Promise.all([getRun(id), listRunEvents(id, 0)])
        const live = new RunLive()
        live.apply(events)
        return { run, live }
      },
      refetchInterval: (query: { state: { data?: { run: Run } } }) =>
        query.state.data && isRunActive(query.state.data.run) ? ACTIVE_REFRESH_MS : false,
    })),
  })
  const loaded = results.flatMap((r) => (r.data ? [r.data] : []))
  const datasets = useDatasets()
  const mismatch = datasets.data
    ? datasetMismatchWarning(
        loaded.map((l) => l.run),
        new Map(datasets.data.map((d) => [d.id, d.name])),
      )
    : null
  const failed = results.flatMap((r, i) => (r.error ? [{ id: ids[i], error: r.error }] : []))

  // `loaded` is a new array every render; its data change only with a fetch.
  const stamp = results.map((r) => r.dataUpdatedAt).join(',')
  // biome-ignore lint/correctness/useExhaustiveDependencies: stamp says when loaded's data changed
  const timeCurves = useMemo<CompareCurve[]>(
    () =>
      loaded.map(({ run, live }) => ({
        name: compareLabel(run),
        iterations: live.iteration.view(),
        values: metric === 'total' ? live.totalMs.view() : live.ms[metric].view(),
      })),
    [metric, stamp],
  )
  // biome-ignore lint/correctness/useExhaustiveDependencies: stamp says when loaded's data changed
  const inertiaCurves = useMemo<CompareCurve[]>(
    () =>
      loaded.map(({ run, live }) => ({
        name: compareLabel(run),
        iterations: live.iteration.view(),
        values: live.inertia.view(),
      })),
    [stamp],
  )
  const logInertia = useMemo(() => {
    let min = Number.POSITIVE_INFINITY
    let max = 0
    for (const c of inertiaCurves)
      for (let i = 0; i < c.values.length; i++) {
        const v = c.values[i] ?? 0
        if (v < min) min = v
        if (v > max) max = v
      }
    return min > 0 && max / min > 20
  }, [inertiaCurves])

  return (
    <div className="page">
      <Breadcrumb href="/runs" label="Runs" />
      <header className="page-header">
        <div>
          <h1>Compare runs</h1>
          <p className="page-subtitle">
            Stage times and inertia per iteration of {ids.length} runs, one line per run.
          </p>
        </div>
      </header>
      {ids.length < 2 && (
        <div className="card empty">
          <strong>Pick two or more runs to compare.</strong>
          <Link href="/runs">Select them in the runs table</Link>
        </div>
      )}
      {asked.length > ids.length && (
        <div className="notice notice-warning" role="status">
          {asked.length} runs asked: the first {MAX_COMPARED_RUNS} are compared.
        </div>
      )}
      {mismatch && (
        <div className="notice notice-warning" role="status" data-testid="compare-dataset-warning">
          {mismatch}
        </div>
      )}
      {failed.map((f) => (
        <div key={f.id} className="card empty" data-testid="compare-error">
          <span>
            Run <span className="num">{f.id}</span>:{' '}
            {f.error instanceof Error ? f.error.message : String(f.error)}
          </span>
        </div>
      ))}
      {ids.length >= 2 && (
        <>
          <section className="card" aria-label="Compared runs">
            <div className="table-wrap">
              <table className="table table-compact" data-testid="compare-table">
                <thead>
                  <tr>
                    <th />
                    <th>Run</th>
                    <th>Status</th>
                    <th className="right">k</th>
                    <th className="right">Workers</th>
                    <th>Broadcast</th>
                    <th>Aggregation / reduction</th>
                    <th className="right">Iterations</th>
                    <th className="right">Mean iteration</th>
                    <th className="right">Final inertia</th>
                  </tr>
                </thead>
                <tbody>
                  {ids.map((id, i) => {
                    const data = results[i]?.data
                    const color =
                      compareColors[loaded.findIndex((x) => x.run.id === id) % compareColors.length]
                    if (!data)
                      return (
                        <tr key={id}>
                          <td />
                          <td className="num">{id.slice(0, 8)}</td>
                          <td colSpan={8} className="muted">
                            {results[i]?.isPending ? 'Loading…' : 'Not available'}
                          </td>
                        </tr>
                      )
                    const { run, live } = data
                    const mean = live.meanIterationMs
                    return (
                      <tr key={id} data-run-id={id}>
                        <td>
                          <span style={{ color }} aria-hidden="true">
                            ●
                          </span>
                        </td>
                        <td className="num">
                          <Link href={`/runs/${id}`}>{runTitle(run)}</Link>
                        </td>
                        <td>
                          <StatusBadge status={run.status} />
                        </td>
                        <td className="right num">{run.params.k}</td>
                        <td className="right num">{run.params.workers}</td>
                        <td>{run.params.broadcast}</td>
                        <td>{reduceMethod(run.params)}</td>
                        <td className="right num">{formatCount(live.count)}</td>
                        <td className="right num">{mean === null ? '—' : `${mean.toFixed(1)} ms`}</td>
                        <td className="right num">
                          {formatInertia(live.inertia.at(live.count - 1) ?? null)}
                        </td>
                      </tr>
                    )
                  })}
                </tbody>
              </table>
            </div>
          </section>
          {loaded.length >= 2 && <ParamDiff runs={loaded.map((l) => l.run)} />}
          <div className="compare-grid">
            <section className="card" aria-label="Stage time comparison">
              <div className="card-header">
                <h2>Time per iteration</h2>
                <div className="toolbar">
                  <label htmlFor="compare-metric" className="muted">
                    Stage
                  </label>
                  <select
                    id="compare-metric"
                    value={metric}
                    onChange={(e) => setMetric(e.target.value as Metric)}
                  >
                    <option value="total">all stages (total)</option>
                    {stageNames.map((s) => (
                      <option key={s} value={s}>
                        {s}
                      </option>
                    ))}
                  </select>
                </div>
              </div>
              <RunCompareChart
                curves={timeCurves}
                yName="ms"
                label={`Time per iteration (${metric}) of the compared runs`}
              />
            </section>
            <section className="card" aria-label="Inertia comparison">
              <div className="card-header">
                <h2>Inertia</h2>
                <span className="card-subtitle">{logInertia ? 'log scale' : ''}</span>
              </div>
              <RunCompareChart
                curves={inertiaCurves}
                yName="inertia"
                log={logInertia}
                label="Inertia per iteration of the compared runs"
              />
            </section>
          </div>
        </>
      )}
    </div>
  )
}

/** The compared runs' parameters: those that differ, a column per run; those they share, on one line. */
function ParamDiff(props: { runs: Run[] }) {
  const { differ, same } = diffParams(props.runs)
  return (
    <section className="card" aria-label="Parameters compared">
      <div className="card-header">
        <h2>Parameters</h2>
        <span className="card-subtitle">
          {differ.length === 0 ? 'the same in every run' : `${differ.length} differ`}
        </span>
      </div>
      {differ.length > 0 && (
        <div className="table-wrap">
          <table className="table table-compact" data-testid="compare-params">
            <thead>
              <tr>
                <th>Parameter</th>
                {props.runs.map((r) => (
                  <th key={r.id}>{runTitle(r)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {differ.map((row) => (
                <tr key={row.name} data-param={row.name}>
                  <td>{row.name}</td>
                  {row.values.map((v, i) => (
                    <td key={props.runs[i]?.id ?? i} className="num">
                      {v.length > 40 ? `${v.slice(0, 40)}…` : v}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted">
        Same in all:{' '}
        {same
          .map((s) => `${s.name} ${s.value.length > 24 ? `${s.value.slice(0, 24)}…` : s.value}`)
          .join(' · ')}
      </p>
    </section>
  )
}
