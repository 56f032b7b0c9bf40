import type { EChartsCoreOption } from 'echarts/core'
import { useMemo } from 'react'
import { EChart } from '../charts/echart.tsx'
import { chartColors } from '../charts/echarts.ts'

/** One run's curve: y per iteration. */
export interface CompareCurve {
  /** Legend entry: run id, k, broadcast, aggregation. */
  name: string
  iterations: ArrayLike<number>
  values: ArrayLike<number>
}

/** Series colours, one per run (cycled past eight runs). */
export const compareColors = [
  '#2f5bea',
  '#d97706',
  '#17803d',
  '#9333ea',
  '#c62828',
  '#0891b2',
  '#6b7280',
  '#be185d',
] as const

/**
 * Curves of several runs over iterations on one value axis (iteration on x, so runs of different
 * lengths line up), one line series per run. `log` uses a log y axis (inertia).
 */
export function RunCompareChart(props: {
  curves: CompareCurve[]
  yName: string
  label: string
  log?: boolean
  height?: number
}) {
  const { curves, yName, log } = props
  const option = useMemo<EChartsCoreOption>(
    () => ({
      animation: false,
      color: [...compareColors],
      grid: { left: 64, right: 24, top: 56, bottom: 40 },
      legend: { top: 0, type: 'scroll', textStyle: { color: chartColors.text } },
      tooltip: {
        trigger: 'axis',
        valueFormatter: (v: number) => (typeof v === 'number' ? v.toPrecision(4) : String(v)),
      },
      xAxis: {
        type: 'value',
        name: 'iteration',
        nameLocation: 'middle',
        nameGap: 26,
        minInterval: 1,
        axisLabel: { color: chartColors.muted },
      },
      yAxis: {
        type: log ? 'log' : 'value',
        name: yName,
        scale: true,
        axisLabel: { color: chartColors.muted, formatter: (v: number) => v.toPrecision(3) },
        splitLine: { lineStyle: { color: chartColors.grid } },
      },
      series: curves.map((c) => ({
        name: c.name,
        type: 'line',
        showSymbol: c.values.length <= 60,
        sampling: 'lttb',
        data: Array.from(c.values, (v, i) => [c.iterations[i], v]),
      })),
    }),
    [curves, yName, log],
  )
  return <EChart option={option} height={props.height ?? 320} label={props.label} />
}
