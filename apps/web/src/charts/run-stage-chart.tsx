import { stageNames } from '@codebook/shared'
import type { EChartsCoreOption } from 'echarts/core'
import { useMemo } from 'react'
import { formatBytes } from '../lib/format.ts'
import type { StageSeries } from '../runs/run-events.ts'
import { EChart } from './echart.tsx'
import { chartColors } from './echarts.ts'

/** One colour per stage, in stage order. */
export const stageColors = ['#2f5bea', '#17803d', '#d97706', '#9333ea', '#0891b2'] as const

/**
 * Stacked bars of the five stage times (critical path, ms) per iteration; the tooltip lists ms and
 * bytes per stage. A click on a bar selects that iteration.
 */
export function RunStageChart(props: { series: StageSeries; onSelect?: (index: number) => void }) {
  const { series } = props
  const option = useMemo<EChartsCoreOption>(
    () => ({
      animation: false,
      color: [...stageColors],
      grid: { left: 56, right: 16, top: 36, bottom: 36 },
      legend: { top: 0, textStyle: { color: chartColors.text } },
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        formatter: (params: unknown) => {
          const items = params as { dataIndex: number }[]
          const i = items[0]?.dataIndex ?? 0
          let total = 0
          const rows = stageNames.map((s, j) => {
            const ms = series.ms[s][i] ?? 0
            total += ms
            return `<span style="color:${stageColors[j]}">●</span> ${s}: <b>${ms.toFixed(1)} ms</b> · ${formatBytes(series.bytes[s][i] ?? 0)}`
          })
          return [`Iteration ${series.iterations[i]} — ${total.toFixed(1)} ms`, ...rows].join('<br/>')
        },
      },
      xAxis: {
        type: 'category',
        name: 'iteration',
        nameLocation: 'middle',
        nameGap: 24,
        data: series.iterations,
        axisLabel: { color: chartColors.muted },
      },
      yAxis: {
        type: 'value',
        name: 'ms',
        axisLabel: { color: chartColors.muted },
        splitLine: { lineStyle: { color: chartColors.grid } },
      },
      series: stageNames.map((s) => ({
        name: s,
        type: 'bar',
        stack: 'stages',
        barMaxWidth: 28,
        // Past a few hundred iterations draw bars as one path (no per-bar elements): redraws stay cheap.
        large: true,
        largeThreshold: 400,
        data: series.ms[s],
      })),
    }),
    [series],
  )
  return (
    <EChart
      option={option}
      height={300}
      label="Stage times per iteration"
      notMerge={false}
      {...(props.onSelect ? { onClick: props.onSelect } : {})}
    />
  )
}
