import { stageNames } from '@codebook/shared'
import type { EChartsCoreOption } from 'echarts/core'
import { useMemo } from 'react'
import { chartColors } from '../charts/echarts.ts'
import { formatBytes } from '../lib/format.ts'
import { RunEChart } from './run-echart.tsx'
import type { RunLive } from './run-live.ts'

/** One colour per stage, in stage order. */
export const stageColors = ['#2f5bea', '#17803d', '#d97706', '#9333ea', '#0891b2'] as const

/**
 * Stacked bars of the five stage times (critical path, ms) per iteration; the tooltip lists ms,
 * bytes and the worker on the critical path per stage. `version` (throttled by the caller) says
 * when the columns of `live` grew.
 */
export function RunStageChart(props: { live: RunLive; version: number }) {
  const { live, version } = props
  const base = useMemo<EChartsCoreOption>(
    () => ({
      animation: false,
      color: [...stageColors],
      grid: { left: 56, right: 16, top: 36, bottom: 36 },
      legend: { top: 0, textStyle: { color: chartColors.text } },
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        // Reads the live columns: always the current data, nothing copied per hover.
        formatter: (params: unknown) => {
          const i = (params as { dataIndex: number }[])[0]?.dataIndex ?? 0
          const rows = stageNames.map((s, j) => {
            const rank = live.critical[s].at(i) ?? -1
            return `<span style="color:${stageColors[j]}">●</span> ${s}: <b>${(live.ms[s].at(i) ?? 0).toFixed(1)} ms</b> · ${formatBytes(live.bytes[s].at(i) ?? 0)}${rank >= 0 ? ` · slowest: worker ${rank}` : ''}`
          })
          return [
            `Iteration ${live.iteration.at(i)} — ${(live.totalMs.at(i) ?? 0).toFixed(1)} ms`,
            ...rows,
          ].join('<br/>')
        },
      },
      xAxis: {
        type: 'category',
        name: 'iteration',
        nameLocation: 'middle',
        nameGap: 24,
        axisLabel: { color: chartColors.muted },
      },
      yAxis: {
        type: 'value',
        name: 'ms',
        axisLabel: { color: chartColors.muted },
        splitLine: { lineStyle: { color: chartColors.grid } },
      },
      series: stageNames.map((s) => ({
        id: s,
        name: s,
        type: 'bar',
        stack: 'stages',
        barMaxWidth: 28,
        // Past a few hundred iterations draw bars as one path (no per-bar elements): redraws stay cheap.
        large: true,
        largeThreshold: 400,
      })),
    }),
    [live],
  )
  // biome-ignore lint/correctness/useExhaustiveDependencies: version says when live's columns grew
  const { data, bars } = useMemo(
    () => ({
      data: {
        xAxis: { data: live.iteration.toArray() },
        series: stageNames.map((s) => ({ id: s, data: live.ms[s].toArray() })),
      } satisfies EChartsCoreOption,
      bars: live.count,
    }),
    [live, version],
  )
  // data-bars: iterations handed to the chart (what the end-to-end test watches grow).
  return (
    <div data-testid="stage-chart" data-bars={bars}>
      <RunEChart base={base} data={data} height={300} label="Stage times per iteration" />
    </div>
  )
}
