import {
  PLAN_LIMITS,
  type PlanPlanner,
  type PlanResult,
  planAggregations,
  planNodeNames,
  planPatterns,
  planPlanners,
  runBounds,
  type Topology,
  type TopologyRecord,
} from '@codebook/shared'
import { useMutation } from '@tanstack/react-query'
import type { EChartsCoreOption } from 'echarts/core'
import { useCallback, useEffect, useMemo, useState } from 'react'
import { Link } from 'wouter'
import { planPlacement } from '../api/topology-client.ts'
import { EChart } from '../charts/echart.tsx'
import { chartColors, valueAxis } from '../charts/echarts.ts'
import { INLINE_ERROR } from '../components/inline-error.tsx'
import { countOf, formatCount, formatPercent } from '../lib/format.ts'
import { placedRunHref } from '../runs/run-form.ts'
import {
  gainOverRandom,
  oneSiteNote,
  PLAN_PATTERN_LABELS,
  type PlacementForm,
  placementFormFor,
  placementRequest,
  rankRanges,
  sitePlacements,
  topologyPlanSites,
} from './placement.ts'
import { formatSeconds, secondsBarTooltip } from './what-if.ts'

const PLANNER_COLORS: Record<PlanPlanner, string> = {
  geo: '#2f5bea',
  'geo-refined': '#0f766e',
  greedy: '#d97706',
  mpipp: '#9333ea',
  random: '#94a3b8',
}

/** The form's number inputs, in order (labels are what the e2e test finds them by). */
const NUMBER_FIELDS: {
  field: 'processes' | 'constraintRatio' | 'seed' | 'monteCarlo'
  label: string
  placeholder?: string
}[] = [
  { field: 'processes', label: 'Processes' },
  { field: 'constraintRatio', label: 'Pinned share' },
  { field: 'seed', label: 'Seed' },
  { field: 'monteCarlo', label: 'Monte Carlo', placeholder: 'off' },
]

/**
 * Placement (issue 21): where each rank of a workload runs across the sites of the edited
 * `topology` (its own nodes, site links priced as an α-β profile) or of the built-in EC2 profile,
 * planned by the server (`POST /api/plans`): each planner's modelled cost as bars, and a planner's
 * mapping per site (ranks, pinned ranks, nodes): the cheapest first, another on a bar click.
 * "Use for a run" opens the run form on the saved topology `saved` with the shown mapping attached.
 */
export function PlacementPanel(props: { topology: Topology; saved: TopologyRecord | null }) {
  // The topology's own sites when it has several (a plan on them can be used for a run on it).
  const [form, setForm] = useState<PlacementForm>(() => placementFormFor(props.topology))
  // A refusal is shown in this card (below), not in the page banner.
  const plan = useMutation({ mutationFn: planPlacement, meta: INLINE_ERROR })
  const own = topologyPlanSites(props.topology)
  const tiesNote = form.sites === 'topology' && own.ok ? oneSiteNote(own.sites) : null
  const checked = placementRequest(form, props.topology)
  const error = checked.ok ? null : checked
  const set = (patch: Partial<PlacementForm>) => setForm((f) => ({ ...f, ...patch }))
  const togglePlanner = (p: PlanPlanner, on: boolean) =>
    set({ planners: planPlanners.filter((x) => (x === p ? on : form.planners.includes(x))) })
  const invalid = (field: keyof PlacementForm) => (error?.field === field ? true : undefined)

  return (
    <section className="card topo-placement" aria-label="Placement">
      <div className="card-header">
        <h2>Placement</h2>
        <span className="card-subtitle">Map a workload’s ranks onto geo-distributed sites</span>
      </div>
      <div className="topo-whatif-form">
        <div className="field">
          <label htmlFor="placement-sites">Sites</label>
          <select
            id="placement-sites"
            value={form.sites}
            aria-invalid={invalid('sites')}
            onChange={(e) => set({ sites: e.target.value as PlacementForm['sites'] })}
          >
            <option value="ec2-4">ec2-4 — Zhou &amp; He’s four EC2 regions (their Tables 1–2)</option>
            <option value="azure-3">azure-3 — their three Azure regions (Table 3)</option>
            <option value="topology" disabled={!own.ok}>
              {own.ok
                ? `this topology — ${countOf(own.sites, 'site')}, ${countOf(own.nodes, 'node')}`
                : 'this topology (its sites need site links)'}
            </option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="placement-pattern">Workload</label>
          <select
            id="placement-pattern"
            value={form.pattern}
            onChange={(e) => set({ pattern: e.target.value as PlacementForm['pattern'] })}
          >
            {planPatterns.map((p) => (
              <option key={p} value={p}>
                {p} — {PLAN_PATTERN_LABELS[p]}
              </option>
            ))}
          </select>
        </div>
        {form.pattern === 'kmeans' && (
          <div className="field">
            <label htmlFor="placement-aggregation">Aggregation</label>
            <select
              id="placement-aggregation"
              value={form.aggregation}
              title="Across sites, ring: three-stage's all-to-all costs the same wherever the ranks go"
              onChange={(e) => set({ aggregation: e.target.value as PlacementForm['aggregation'] })}
            >
              {planAggregations.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </div>
        )}
        {NUMBER_FIELDS.map((f) => (
          <NumberField
            key={f.field}
            id={`placement-${f.field}`}
            label={f.label}
            value={form[f.field]}
            invalid={invalid(f.field)}
            placeholder={f.placeholder}
            onChange={(v) => set({ [f.field]: v })}
          />
        ))}
        <fieldset className="topo-placement-planners" aria-invalid={invalid('planners')}>
          <legend>Planners</legend>
          {planPlanners.map((p) => (
            <label key={p} className="topo-check">
              <input
                type="checkbox"
                checked={form.planners.includes(p)}
                onChange={(e) => togglePlanner(p, e.target.checked)}
              />{' '}
              {p}
            </label>
          ))}
        </fieldset>
        <button
          type="button"
          className="btn btn-primary"
          disabled={!checked.ok || plan.isPending}
          onClick={() => checked.ok && plan.mutate(checked.body)}
        >
          {plan.isPending ? 'Planning…' : 'Plan placement'}
        </button>
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error.field}: {error.message}
        </p>
      )}
      <p className="muted topo-whatif-note">
        Up to {formatCount(PLAN_LIMITS.maxProcesses)} processes ({formatCount(PLAN_LIMITS.maxKmeansProcesses)}{' '}
        for K-means), one per node: on a built-in profile spread evenly over the sites, on this topology its
        own nodes (site links as latency and bandwidth, within a site two NIC hops and the slowest NIC). The
        pinned share of ranks is tied to a random site by the seed. Cost is the α-β model’s time of one
        communication step.
      </p>
      {tiesNote && (
        <div className="notice notice-warning" role="note" data-testid="placement-one-site">
          {tiesNote}
        </div>
      )}
      {plan.isPending && <Planning />}
      {plan.isError && (
        <p className="field-error" role="alert">
          {plan.error.message}
        </p>
      )}
      {plan.data && !plan.isPending && <PlacementResult result={plan.data} saved={props.saved} />}
    </section>
  )
}

function NumberField(props: {
  id: string
  label: string
  value: string
  invalid: true | undefined
  placeholder?: string
  onChange: (v: string) => void
}) {
  return (
    <div className="field topo-field-narrow">
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        className="num"
        inputMode="decimal"
        value={props.value}
        placeholder={props.placeholder}
        aria-invalid={props.invalid}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </div>
  )
}

/** The server answers once, at the end: an indeterminate bar and the time spent so far. */
function Planning() {
  const [started] = useState(() => performance.now())
  const [now, setNow] = useState(started)
  useEffect(() => {
    const t = setInterval(() => setNow(performance.now()), 200)
    return () => clearInterval(t)
  }, [])
  return (
    <div className="topo-placement-progress" role="status">
      <progress aria-label="Planning" />
      <span className="muted num">Planning… {((now - started) / 1000).toFixed(1)} s</span>
    </div>
  )
}

function PlacementResult(props: { result: PlanResult; saved: TopologyRecord | null }) {
  const r = props.result
  // The cheapest plan's mapping first; a click on another planner's bar (or the select) shows its own.
  const [shown, setShown] = useState<PlanPlanner>(r.chosen)
  const costOption = useMemo<EChartsCoreOption>(() => costChart(r), [r])
  const sites = useMemo(() => sitePlacements(r, shown), [r, shown])
  const showBar = useCallback((i: number) => setShown(r.plans[i]?.algorithm ?? r.chosen), [r])
  const siteOption = useMemo<EChartsCoreOption>(() => siteChart(sites), [sites])
  return (
    <div className="grid-2 topo-whatif-grid" data-testid="placement-result">
      <div className="topo-whatif-part">
        <h3>Cost per planner</h3>
        <EChart
          option={costOption}
          height={260}
          label="Modelled communication cost per planner"
          onClick={showBar}
        />
        <table className="table table-compact topo-whatif-table" aria-label="Cost per planner">
          <thead>
            <tr>
              <th>planner</th>
              <th className="num">cost</th>
              <th className="num">gain over random</th>
              <th className="num">planned in</th>
            </tr>
          </thead>
          <tbody>
            {r.plans.map((p) => {
              const gain = gainOverRandom(r, p.cost)
              return (
                <tr key={p.algorithm} data-planner={p.algorithm}>
                  <td>
                    {p.algorithm}
                    {p.algorithm === r.chosen ? ' (chosen)' : ''}
                    {p.truncated ? ' (time bound hit)' : ''}
                  </td>
                  <td className="num">{formatSeconds(p.cost)}</td>
                  <td className="num">
                    {gain === null ? '—' : r.sites.length === 1 ? 'tie (one site)' : formatPercent(gain)}
                  </td>
                  <td className="num">{formatSeconds(p.planMs / 1000)}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
        {oneSiteNote(r.sites.length) && (
          <p className="muted topo-whatif-note" data-testid="placement-ties">
            {oneSiteNote(r.sites.length)}
          </p>
        )}
        {r.monteCarlo && (
          <p className="muted num topo-whatif-note" data-testid="placement-monte-carlo">
            Monte Carlo: best of {formatCount(r.monteCarlo.samples)} random mappings{' '}
            {formatSeconds(r.monteCarlo.best)} (mean {formatSeconds(r.monteCarlo.mean)})
            {r.monteCarlo.fractionBetterThanGeo !== null &&
              ` · ${formatPercent(r.monteCarlo.fractionBetterThanGeo)} beat geo`}
          </p>
        )}
      </div>
      <div className="topo-whatif-part">
        <div className="topo-placement-shown">
          <h3>
            Mapping ({r.pattern}, {countOf(r.processes, 'rank')})
          </h3>
          <div className="field">
            <label htmlFor="placement-shown">Planner</label>
            <select
              id="placement-shown"
              value={shown}
              onChange={(e) => setShown(e.target.value as PlanPlanner)}
            >
              {r.plans.map((p) => (
                <option key={p.algorithm} value={p.algorithm}>
                  {p.algorithm}
                  {p.algorithm === r.chosen ? ' (cheapest)' : ''}
                </option>
              ))}
            </select>
          </div>
        </div>
        <UseForRun result={r} planner={shown} saved={props.saved} />
        <EChart option={siteOption} height={260} label={`Ranks per site of the ${shown} mapping`} />
        <table className="table table-compact topo-whatif-table" aria-label="Ranks per site">
          <thead>
            <tr>
              <th>site</th>
              <th className="num">nodes</th>
              <th className="num">ranks</th>
              <th className="num">pinned</th>
              <th>ranks placed</th>
            </tr>
          </thead>
          <tbody>
            {sites.map((s) => (
              <tr key={s.site} data-site={s.site}>
                <td>{s.site}</td>
                <td className="num">{s.nodes}</td>
                <td className="num">{s.ranks.length}</td>
                <td className="num">{s.pinned}</td>
                <td className="num topo-placement-ranks">{rankRanges(s.ranks)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  )
}

/**
 * "Use for a run": the shown planner's rank → node, as nodes of the saved topology (plan sites
 * matched by name, else by position: `planNodeNames`), handed to the run form. Disabled, with the
 * reason, when the topology is unsaved, cannot hold the plan, or the plan has more ranks than a run has workers.
 */
function UseForRun(props: { result: PlanResult; planner: PlanPlanner; saved: TopologyRecord | null }) {
  const { result, planner, saved } = props
  const placed = useMemo(
    () => (saved ? planNodeNames(result, saved.topology, result.processes, planner) : null),
    [result, planner, saved],
  )
  const why =
    saved === null
      ? 'Save the topology first: a run uses a saved version'
      : result.processes > runBounds.workers
        ? `A run has at most ${runBounds.workers} workers; this plan places ${formatCount(result.processes)} ranks`
        : placed && !placed.ok
          ? placed.message
          : null
  if (why !== null || !placed?.ok || saved === null)
    return (
      <p className="muted topo-whatif-note" data-testid="placement-use-disabled">
        <button type="button" className="btn" disabled title={why ?? undefined}>
          Use for a run
        </button>{' '}
        {why}
      </p>
    )
  return (
    <p className="topo-whatif-note">
      <Link
        href={placedRunHref(saved.id, saved.version, planner, placed.names, result.aggregation)}
        className="btn"
      >
        Use for a run
      </Link>{' '}
      <span className="muted">
        {countOf(result.processes, 'worker')} placed by {planner} on {saved.name} v{saved.version}
        {result.aggregation ? `, ${result.aggregation} aggregation as planned` : ''}
      </span>
    </p>
  )
}

function costChart(r: PlanResult): EChartsCoreOption {
  return {
    animation: false,
    grid: { left: 64, right: 16, top: 24, bottom: 32 },
    tooltip: secondsBarTooltip,
    xAxis: {
      type: 'category',
      data: r.plans.map((p) => p.algorithm),
      axisLabel: { color: chartColors.muted },
    },
    yAxis: valueAxis('seconds'),
    series: [
      {
        name: 'cost',
        type: 'bar',
        barMaxWidth: 48,
        data: r.plans.map((p) => ({ value: p.cost, itemStyle: { color: PLANNER_COLORS[p.algorithm] } })),
      },
    ],
  }
}

function siteChart(sites: ReturnType<typeof sitePlacements>): EChartsCoreOption {
  return {
    animation: false,
    color: ['#c62828', '#2f5bea', '#d1d5db'],
    grid: { left: 48, right: 16, top: 32, bottom: 32 },
    legend: { top: 0, textStyle: { color: chartColors.text } },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: { type: 'category', data: sites.map((s) => s.site), axisLabel: { color: chartColors.muted } },
    yAxis: valueAxis('ranks'),
    series: [
      { name: 'pinned', type: 'bar', stack: 'site', data: sites.map((s) => s.pinned) },
      { name: 'placed', type: 'bar', stack: 'site', data: sites.map((s) => s.ranks.length - s.pinned) },
      {
        name: 'free nodes',
        type: 'bar',
        stack: 'site',
        data: sites.map((s) => s.nodes - s.ranks.length),
      },
    ],
  }
}
