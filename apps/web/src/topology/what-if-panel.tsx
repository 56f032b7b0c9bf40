import {
  type SimulatedAggregation,
  type SimulatedBroadcast,
  type SimulateKmeansResult,
  simulatedAggregations,
  type Topology,
  topologyNodes,
} from '@codebook/shared'
import { useMutation } from '@tanstack/react-query'
import type { EChartsCoreOption } from 'echarts/core'
import { useMemo, useState } from 'react'
import { useDatasets } from '../api/queries.ts'
import { simulateBroadcast, simulateKmeans } from '../api/topology-client.ts'
import { EChart } from '../charts/echart.tsx'
import { chartColors, valueAxis } from '../charts/echarts.ts'
import { INLINE_ERROR, InlineError } from '../components/inline-error.tsx'
import { countOf, formatCount } from '../lib/format.ts'
import { stageColors } from '../runs/run-stage-chart.tsx'
import {
  BROADCAST_SIZES,
  broadcastSeries,
  CHUNK_SIZES,
  DEFAULT_CHUNK_BYTES,
  formatSeconds,
  KMEANS_STAGES,
  kmeansSeries,
  nodeCounts,
  secondsBarTooltip,
  WHAT_IF_ALGORITHMS,
  whatIfErrorHint,
} from './what-if.ts'

const ALGORITHM_COLORS = ['#c62828', '#d97706', '#9333ea', '#2f5bea', '#6b7280']

/**
 * What-if: the simulator on the topology being edited (unsaved edits included). A broadcast of a
 * chosen size per algorithm over growing node counts, and one predicted K-means iteration per
 * broadcast algorithm, stacked by stage.
 */
export function WhatIfPanel(props: { topology: Topology; valid: boolean }) {
  return (
    <section className="card topo-whatif" aria-label="What-if">
      <div className="card-header">
        <h2>What if…</h2>
        <span className="card-subtitle">Flow-level simulation of this topology, edits included</span>
      </div>
      {!props.valid && <div className="notice notice-warning">Fix the validation problems to simulate.</div>}
      <div className="grid-2 topo-whatif-grid">
        <BroadcastWhatIf topology={props.topology} valid={props.valid} />
        <KmeansWhatIf topology={props.topology} valid={props.valid} />
      </div>
    </section>
  )
}

function BroadcastWhatIf(props: { topology: Topology; valid: boolean }) {
  const [bytes, setBytes] = useState<number>(1e8)
  const [chunkBytes, setChunkBytes] = useState<number>(DEFAULT_CHUNK_BYTES)
  const [logScale, setLogScale] = useState(true)
  const total = topologyNodes(props.topology).length
  // A refusal (too many simulated messages) is shown in this card, where the user clicked.
  const sim = useMutation({ mutationFn: simulateBroadcast, meta: INLINE_ERROR })
  const run = () =>
    sim.mutate({
      topology: props.topology,
      bytes,
      chunkBytes,
      algorithms: WHAT_IF_ALGORITHMS,
      nodes: nodeCounts(total),
    })

  const data = sim.data
  const pivot = useMemo(() => (data ? broadcastSeries(data.results) : null), [data])
  const option = useMemo<EChartsCoreOption | null>(
    () =>
      pivot && {
        animation: false,
        color: ALGORITHM_COLORS,
        grid: { left: 64, right: 16, top: 40, bottom: 40 },
        legend: { top: 0, textStyle: { color: chartColors.text } },
        tooltip: {
          trigger: 'axis',
          valueFormatter: (v: unknown) => (typeof v === 'number' ? formatSeconds(v) : '—'),
        },
        xAxis: {
          type: 'category',
          name: 'nodes',
          nameLocation: 'middle',
          nameGap: 26,
          data: pivot.nodes,
          axisLabel: { color: chartColors.muted },
        },
        yAxis: {
          type: logScale ? 'log' : 'value',
          name: 'seconds',
          axisLabel: { color: chartColors.muted },
          splitLine: { lineStyle: { color: chartColors.grid } },
        },
        series: pivot.series.map((s) => ({
          name: s.algorithm,
          type: 'line',
          symbolSize: 6,
          data: s.seconds,
        })),
      },
    [pivot, logScale],
  )

  return (
    <div className="topo-whatif-part" data-testid="whatif-broadcast">
      <h3>Broadcast</h3>
      <div className="topo-whatif-form">
        <div className="field">
          <label htmlFor="whatif-collective">Collective</label>
          <select id="whatif-collective" value="broadcast" disabled>
            <option value="broadcast">broadcast</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="whatif-size">Size</label>
          <select id="whatif-size" value={bytes} onChange={(e) => setBytes(Number(e.target.value))}>
            {BROADCAST_SIZES.map((s) => (
              <option key={s.bytes} value={s.bytes}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <ChunkField id="whatif-chunk" value={chunkBytes} onChange={setChunkBytes} />
        <label className="topo-check">
          <input type="checkbox" checked={logScale} onChange={(e) => setLogScale(e.target.checked)} /> log
          scale
        </label>
        <button
          type="button"
          className="btn btn-primary"
          disabled={!props.valid || sim.isPending || total === 0}
          onClick={run}
        >
          {sim.isPending ? 'Simulating…' : 'Simulate broadcast'}
        </button>
      </div>
      <p className="muted topo-whatif-note">
        Root = first node; node counts {nodeCounts(total).join(', ')} (the first N nodes in topology order).
      </p>
      <InlineError
        error={sim.error}
        hint={whatIfErrorHint(sim.error, 'broadcast')}
        testId="whatif-broadcast-error"
      />
      {option && pivot && (
        <>
          <EChart option={option} height={300} label="Simulated broadcast time per algorithm" />
          <table className="table table-compact topo-whatif-table" aria-label="Simulated broadcast seconds">
            <thead>
              <tr>
                <th>algorithm</th>
                {pivot.nodes.map((n) => (
                  <th key={n} className="num">
                    {countOf(n, 'node')}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {pivot.series.map((s) => (
                <tr key={s.algorithm} data-algorithm={s.algorithm}>
                  <td>{s.algorithm}</td>
                  {s.seconds.map((v, i) => (
                    <td key={pivot.nodes[i]} className="num">
                      {v === null ? '—' : formatSeconds(v)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  )
}

/** Broadcasts compared in the K-means prediction (one bar each). */
const KMEANS_BROADCASTS: SimulatedBroadcast[] = ['simple', 'mst', 'bucket', 'chain', 'chain-random']

function KmeansWhatIf(props: { topology: Topology; valid: boolean }) {
  const datasets = useDatasets()
  const ready = (datasets.data ?? []).filter((d) => d.status === 'ready')
  const [datasetId, setDatasetId] = useState('')
  const [n, setN] = useState('1000000')
  const [d, setD] = useState('512')
  const [k, setK] = useState('1000')
  const [aggregation, setAggregation] = useState<SimulatedAggregation>('three-stage')
  const [chunkBytes, setChunkBytes] = useState<number>(DEFAULT_CHUNK_BYTES)
  const chosen = ready.find((x) => x.id === datasetId)
  const sim = useMutation({
    meta: INLINE_ERROR,
    mutationFn: (input: { size: { datasetId: string } | { n: number; d: number }; k: number }) =>
      Promise.all(
        KMEANS_BROADCASTS.map((broadcast) =>
          simulateKmeans({
            topology: props.topology,
            ...input.size,
            k: input.k,
            broadcast,
            aggregation,
            chunkBytes,
          }),
        ),
      ),
  })
  const kNum = Number(k)
  const nNum = Number(n)
  const dNum = Number(d)
  const formOk =
    Number.isInteger(kNum) &&
    kNum > 0 &&
    (chosen !== undefined || (Number.isInteger(nNum) && nNum > 0 && Number.isInteger(dNum) && dNum > 0))
  const run = () => sim.mutate({ size: chosen ? { datasetId: chosen.id } : { n: nNum, d: dNum }, k: kNum })

  const results = sim.data
  const option = useMemo<EChartsCoreOption | null>(() => (results ? kmeansOption(results) : null), [results])

  return (
    <div className="topo-whatif-part" data-testid="whatif-kmeans">
      <h3>K-means iteration</h3>
      <div className="topo-whatif-form">
        <div className="field">
          <label htmlFor="whatif-dataset">Dataset</label>
          <select id="whatif-dataset" value={datasetId} onChange={(e) => setDatasetId(e.target.value)}>
            <option value="">custom n × d</option>
            {ready.map((x) => (
              <option key={x.id} value={x.id}>
                {x.name} — n {formatCount(x.n)}, d {formatCount(x.d)}
              </option>
            ))}
          </select>
        </div>
        {!chosen && (
          <>
            <div className="field topo-field-narrow">
              <label htmlFor="whatif-n">n</label>
              <input
                id="whatif-n"
                className="num"
                inputMode="numeric"
                value={n}
                onChange={(e) => setN(e.target.value)}
              />
            </div>
            <div className="field topo-field-narrow">
              <label htmlFor="whatif-d">d</label>
              <input
                id="whatif-d"
                className="num"
                inputMode="numeric"
                value={d}
                onChange={(e) => setD(e.target.value)}
              />
            </div>
          </>
        )}
        <div className="field topo-field-narrow">
          <label htmlFor="whatif-k">k</label>
          <input
            id="whatif-k"
            className="num"
            inputMode="numeric"
            value={k}
            onChange={(e) => setK(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="whatif-aggregation">Aggregation</label>
          <select
            id="whatif-aggregation"
            value={aggregation}
            onChange={(e) => setAggregation(e.target.value as SimulatedAggregation)}
          >
            {simulatedAggregations.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <ChunkField id="whatif-kmeans-chunk" value={chunkBytes} onChange={setChunkBytes} />
        <button
          type="button"
          className="btn btn-primary"
          disabled={!props.valid || !formOk || sim.isPending}
          onClick={run}
        >
          {sim.isPending ? 'Predicting…' : 'Predict iteration'}
        </button>
      </div>
      <p className="muted topo-whatif-note">
        One iteration on every node, per broadcast algorithm, stages run one after another.
      </p>
      <InlineError
        error={sim.error}
        hint={whatIfErrorHint(sim.error, 'kmeans')}
        testId="whatif-kmeans-error"
      />
      {option && results && (
        <>
          <EChart option={option} height={300} label="Predicted K-means iteration per stage" />
          <p className="muted num topo-whatif-note" data-testid="kmeans-summary">
            n {formatCount(results[0]!.n)} · d {results[0]!.d} · k {formatCount(results[0]!.k)} ·{' '}
            {countOf(results[0]!.nodes, 'node')} ·{' '}
            {results.map((r) => `${r.broadcast} ${formatSeconds(r.seconds)}`).join(' · ')}
          </p>
        </>
      )}
    </div>
  )
}

/** The pipeline chunk of the simulated transfers (each chunk is one simulated message). */
function ChunkField(props: { id: string; value: number; onChange: (bytes: number) => void }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>Chunk</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(Number(e.target.value))}>
        {CHUNK_SIZES.map((c) => (
          <option key={c.bytes} value={c.bytes}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  )
}

function kmeansOption(results: SimulateKmeansResult[]): EChartsCoreOption {
  const series = kmeansSeries(results)
  return {
    animation: false,
    color: [...stageColors],
    grid: { left: 64, right: 16, top: 40, bottom: 40 },
    legend: { top: 0, textStyle: { color: chartColors.text } },
    tooltip: secondsBarTooltip,
    xAxis: {
      type: 'category',
      name: 'broadcast',
      nameLocation: 'middle',
      nameGap: 26,
      data: results.map((r) => r.broadcast),
      axisLabel: { color: chartColors.muted },
    },
    yAxis: valueAxis('seconds'),
    series: KMEANS_STAGES.map((stage, i) => ({
      name: stage,
      type: 'bar',
      stack: 'stages',
      barMaxWidth: 40,
      data: series[i]!.seconds,
    })),
  }
}
