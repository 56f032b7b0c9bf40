import type { GridCell, MarkovResult, Study, StudyRow } from '@codebook/shared'
import { useMemo, useState } from 'react'
import { Link, useLocation } from 'wouter'
import {
  isStudyActive,
  useCancelStudy,
  useDeleteStudy,
  useFollowedStudy,
  useStudy,
  useStudyLive,
} from '../api/study-queries.ts'
import { EChart } from '../charts/echart.tsx'
import { Breadcrumb } from '../components/breadcrumb.tsx'
import { ProgressBar } from '../components/progress-bar.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { formatDateTime } from '../lib/format.ts'
import {
  algorithmLabels,
  bestHeatmapOption,
  canLogMakespan,
  computeMeansOf,
  figure3Curves,
  figure3Option,
  nonCommutativeAlgorithms,
  ratioHeatmapOption,
} from './study-charts.ts'
import { useStudyEvents } from './use-study-events.ts'
import './reductions.css'

/** `/reductions/:id`: a study's progress and, as its cells finish, Figure 3, the Figure 4 maps or the Markov table. */
export function StudyDetailPage(props: { id: string }) {
  const socket = useStudyEvents(useFollowedStudy(props.id))
  const study = useStudy(props.id, socket === 'live')
  const s = study.data
  if (!s) {
    return (
      <div className="page">
        <Breadcrumb href="/reductions" label="Reductions" />
        <div className="card">
          {study.isPending ? (
            <div className="loading">Loading study…</div>
          ) : (
            <div className="empty">
              <strong>Study not found.</strong>
              <Link href="/reductions">Back to studies</Link>
            </div>
          )}
        </div>
      </div>
    )
  }
  return (
    <div className="page">
      <Breadcrumb href="/reductions" label="Reductions" />
      <StudyHeader study={s} />
      {s.error && (
        <div className="notice notice-error" role="alert">
          <span>
            <span className="code-tag">{s.error.code}</span> {s.error.message}
          </span>
        </div>
      )}
      <ProgressCard study={s} socketLive={socket === 'live'} />
      {s.kind === 'reductions' && <Figure3Card rows={s.results} />}
      {s.kind === 'grid' && <Figure4Card cells={s.results} />}
      {s.kind === 'markov' && <MarkovCard results={s.results} />}
    </div>
  )
}

function StudyHeader(props: { study: Study }) {
  const s = props.study
  const [, navigate] = useLocation()
  const cancel = useCancelStudy()
  const remove = useDeleteStudy()
  const p = s.params
  return (
    <header className="page-header">
      <div>
        <h1 className="with-badge">
          {s.name} <StatusBadge status={s.status} />
        </h1>
        <p className="page-subtitle">
          n = {p.n} · {p.runs.toLocaleString('en')} runs{s.kind === 'markov' ? '' : ' a cell'} · seed {p.seed}{' '}
          · created {formatDateTime(s.createdAt)}
        </p>
      </div>
      <div className="page-actions">
        {isStudyActive(s) && (
          <button
            type="button"
            className="btn btn-danger-outline"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate(s.id)}
          >
            {cancel.isPending ? 'Cancelling…' : 'Cancel study'}
          </button>
        )}
        <button
          type="button"
          className="btn btn-danger-outline"
          disabled={remove.isPending}
          onClick={() => {
            if (window.confirm(`Delete the study “${s.name}”?`))
              remove.mutate(s.id, { onSuccess: () => navigate('/reductions') })
          }}
        >
          Delete
        </button>
      </div>
    </header>
  )
}

function ProgressCard(props: { study: Study; socketLive: boolean }) {
  const s = props.study
  const live = useStudyLive(s.id).data
  const active = isStudyActive(s)
  const text =
    s.status === 'queued'
      ? 'Queued — studies run one at a time'
      : active
        ? `Running — ${live?.message ?? 'starting'}`
        : s.status === 'succeeded'
          ? `Finished ${s.finishedAt ? formatDateTime(s.finishedAt) : ''}`
          : `Stopped (${s.status})`
  return (
    <section className="card" aria-label="Progress">
      <div className="run-progress">
        <div className="run-progress-line">
          <span data-testid="study-progress-text">{text}</span>
          <span className="num">{!props.socketLive && active ? 'events offline, polling' : ''}</span>
        </div>
        <ProgressBar fraction={s.status === 'succeeded' ? 1 : s.progress} label="Study progress" />
      </div>
    </section>
  )
}

function Figure3Card(props: { rows: StudyRow[] }) {
  const muCs = computeMeansOf(props.rows)
  const [picked, setPicked] = useState<number | null>(null)
  const muC = picked !== null && muCs.includes(picked) ? picked : (muCs[0] ?? 0)
  const curves = useMemo(() => figure3Curves(props.rows, muC), [props.rows, muC])
  // A log makespan axis by default: at CV 10 the band reaches ten times the low-CV means.
  const [logAxis, setLogAxis] = useState(true)
  const log = logAxis && canLogMakespan(curves)
  const option = useMemo(() => figure3Option(curves, log), [curves, log])
  return (
    <section className="card" aria-label="Figure 3">
      <div className="card-header">
        <h2>Makespan against CV (Figure 3)</h2>
        <span className="card-subtitle">mean with the 10–90 % band, in units of μd</span>
        <label className="checkbox">
          <input type="checkbox" checked={logAxis} onChange={(e) => setLogAxis(e.target.checked)} /> log
          makespan axis
        </label>
        {muCs.length > 1 && (
          <select aria-label="μc" value={muC} onChange={(e) => setPicked(Number(e.target.value))}>
            {muCs.map((m) => (
              <option key={m} value={m}>
                μc = {m}
              </option>
            ))}
          </select>
        )}
      </div>
      {props.rows.length === 0 ? (
        <div className="empty">No cell has finished yet.</div>
      ) : (
        <>
          <div
            data-testid="figure3-chart"
            data-curves={curves.length}
            data-points={curves.reduce((sum, c) => sum + c.points.length, 0)}
          >
            <EChart
              option={option}
              height={380}
              label="Mean makespan per algorithm against CV, log CV axis"
            />
          </div>
          <RowsTable rows={props.rows.filter((r) => r.muC === muC)} />
        </>
      )}
    </section>
  )
}

function RowsTable(props: { rows: StudyRow[] }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th>Algorithm</th>
            <th className="right">CV</th>
            <th className="right">μc</th>
            <th className="right">mean</th>
            <th className="right">q10</th>
            <th className="right">q90</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={`${r.algorithm}-${r.cv}-${r.muC}`}>
              <td>{algorithmLabels[r.algorithm]}</td>
              <td className="num right">{r.cv}</td>
              <td className="num right">{r.muC}</td>
              <td className="num right">{r.mean.toFixed(4)}</td>
              <td className="num right">{r.q10.toFixed(4)}</td>
              <td className="num right">{r.q90.toFixed(4)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function Figure4Card(props: { cells: GridCell[] }) {
  const ratio = useMemo(() => ratioHeatmapOption(props.cells), [props.cells])
  const best = useMemo(() => bestHeatmapOption(props.cells), [props.cells])
  // The paper's Figure 4(b): only the algorithms that accept a non-commutative ⊕, from the means.
  const bestNonCommutative = useMemo(
    () => bestHeatmapOption(props.cells, nonCommutativeAlgorithms),
    [props.cells],
  )
  return (
    <section className="card" aria-label="Figure 4">
      <div className="card-header">
        <h2>CV × μc/μd maps (Figure 4)</h2>
        <span className="card-subtitle num">{props.cells.length} of 221 cells</span>
      </div>
      {props.cells.length === 0 ? (
        <div className="empty">No cell has finished yet.</div>
      ) : (
        <div className="chart-pair" data-testid="figure4" data-cells={props.cells.length}>
          <div data-testid="figure4-ratio">
            <h3>Figure 4(a): Fibonacci-stat / Tree-dyn (mean makespans)</h3>
            <EChart option={ratio} height={420} label="Heat map of Fibonacci-stat over Tree-dyn" />
          </div>
          <div data-testid="figure4-best">
            <h3>Best of all four algorithms (lowest mean)</h3>
            <EChart option={best} height={420} label="Heat map of the best algorithm per cell" />
          </div>
          <div data-testid="figure4-best-noncommutative">
            <h3>Figure 4(b): best non-commutative algorithm (Tree-dyn left out)</h3>
            <EChart
              option={bestNonCommutative}
              height={420}
              label="Heat map of the best of Binomial-stat, Fibonacci-stat and Non-Commut-Tree-dyn per cell"
            />
          </div>
        </div>
      )}
    </section>
  )
}

function MarkovCard(props: { results: MarkovResult[] }) {
  const r = props.results[0]
  const gap = (x: number) => (r ? `${(((r.simulatedMean - x) / x) * 100).toFixed(2)} %` : '')
  return (
    <section className="card" aria-label="Markov check">
      <div className="card-header">
        <h2>Tree-dyn with exponential costs (Section 3)</h2>
        <span className="card-subtitle">μd = 1, μc = 0</span>
      </div>
      {!r ? (
        <div className="empty">Not finished yet.</div>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="markov-table">
            <thead>
              <tr>
                <th />
                <th className="right">mean</th>
                <th className="right">variance</th>
                <th className="right">simulation vs mean</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>
                  simulated ({r.runs.toLocaleString('en')} runs, n = {r.n})
                </td>
                <td className="num right">{r.simulatedMean.toFixed(4)}</td>
                <td className="num right">{r.simulatedVariance.toFixed(4)}</td>
                <td />
              </tr>
              <tr>
                <td>derived: Σ 1/⌊m/2⌋ (= 2·H(n/2) − 2/n for even n)</td>
                <td className="num right">{r.formulaMean.toFixed(4)}</td>
                <td className="num right">{r.formulaVariance.toFixed(4)}</td>
                <td className="num right">{gap(r.formulaMean)}</td>
              </tr>
              <tr>
                <td>paper: 2·H(n/2) + 2/n</td>
                <td className="num right">
                  {r.paperFormulaMean === null ? 'even n only' : r.paperFormulaMean.toFixed(4)}
                </td>
                <td />
                <td className="num right">{r.paperFormulaMean === null ? '' : gap(r.paperFormulaMean)}</td>
              </tr>
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
