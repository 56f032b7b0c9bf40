import type { EChartsCoreOption } from 'echarts/core'
import { useMemo } from 'react'
import type { StageSeries } from '../runs/run-events.ts'
import { EChart } from './echart.tsx'
import { chartColors } from './echarts.ts'

/**
 * Inertia per iteration (log y when it falls by orders of magnitude, as with a random init) and, when the reports carry it, the distance fraction on a second axis.
 */
export function RunInertiaChart(props: { series: StageSeries }) {
  const { series } = props
  // A log axis only pays when the values span more than an order of magnitude or so.
  const min = Math.min(...series.inertia)
  const positive = min > 0 && Math.max(...series.inertia) / min > 20
  const option = useMemo<EChartsCoreOption>(
    () => ({
      animation: false,
      grid: { left: 64, right: series.hasDistanceFraction ? 56 : 16, top: 36, bottom: 36 },
      legend: { top: 0, textStyle: { color: chartColors.text } },
      tooltip: { trigger: 'axis' },
      xAxis: {
        type: 'category',
        name: 'iteration',
        nameLocation: 'middle',
        nameGap: 24,
        data: series.iterations,
        axisLabel: { color: chartColors.muted },
      },
      yAxis: [
        {
          type: positive ? 'log' : 'value',
          name: 'inertia',
          scale: true,
          axisLabel: { color: chartColors.muted, formatter: (v: number) => v.toPrecision(3) },
          splitLine: { lineStyle: { color: chartColors.grid } },
        },
        {
          type: 'value',
          name: 'distance fraction',
          min: 0,
          show: series.hasDistanceFraction,
          axisLabel: { color: chartColors.muted },
          splitLine: { show: false },
        },
      ],
      series: [
        {
          name: 'inertia',
          type: 'line',
          showSymbol: series.iterations.length <= 60,
          color: chartColors.accent,
          data: series.inertia,
        },
        ...(series.hasDistanceFraction
          ? [
              {
                name: 'distance fraction',
                type: 'line',
                yAxisIndex: 1,
                showSymbol: series.iterations.length <= 60,
                color: '#d97706',
                data: series.distanceFraction,
              },
            ]
          : []),
      ],
    }),
    [series, positive],
  )
  return <EChart option={option} height={260} label="Inertia per iteration" notMerge={false} />
}
