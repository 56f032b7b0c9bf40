import type { EChartsCoreOption } from 'echarts/core'
import { useMemo } from 'react'
import { chartColors } from '../charts/echarts.ts'
import { RunEChart } from './run-echart.tsx'
import type { RunLive } from './run-live.ts'

/**
 * Inertia per iteration (log y when it falls by orders of magnitude, as with a random init) and,
 * when the reports carry them, the distance fraction and the approximate assignment's recall on
 * a second axis (both fractions). `version` (throttled by the
 * caller) says when the columns of `live` grew.
 */
export function RunInertiaChart(props: { live: RunLive; version: number }) {
  const { live, version } = props
  const withRecall = live.hasAssignmentRecall
  const withFraction = live.hasDistanceFraction || withRecall
  const base = useMemo<EChartsCoreOption>(
    () => ({
      animation: false,
      grid: { left: 64, right: withFraction ? 56 : 16, top: 36, bottom: 36 },
      legend: { top: 0, textStyle: { color: chartColors.text } },
      tooltip: { trigger: 'axis' },
      xAxis: {
        type: 'category',
        name: 'iteration',
        nameLocation: 'middle',
        nameGap: 24,
        axisLabel: { color: chartColors.muted },
      },
      yAxis: [
        {
          type: 'value',
          name: 'inertia',
          scale: true,
          axisLabel: { color: chartColors.muted, formatter: (v: number) => v.toPrecision(3) },
          splitLine: { lineStyle: { color: chartColors.grid } },
        },
        {
          type: 'value',
          name: withRecall ? 'fraction' : 'distance fraction',
          min: 0,
          show: withFraction,
          axisLabel: { color: chartColors.muted },
          splitLine: { show: false },
        },
      ],
      series: [
        { id: 'inertia', name: 'inertia', type: 'line', color: chartColors.accent },
        ...(withFraction
          ? [
              {
                id: 'fraction',
                name: 'distance fraction',
                type: 'line',
                yAxisIndex: 1,
                color: '#d97706',
              },
            ]
          : []),
        ...(withRecall
          ? [{ id: 'recall', name: 'assignment recall', type: 'line', yAxisIndex: 1, color: '#059669' }]
          : []),
      ],
    }),
    [withFraction, withRecall],
  )
  // biome-ignore lint/correctness/useExhaustiveDependencies: version says when live's columns grew
  const data = useMemo<EChartsCoreOption>(() => {
    const inertia = live.inertia.view()
    let min = Number.POSITIVE_INFINITY
    let max = 0
    for (const v of inertia) {
      if (v < min) min = v
      if (v > max) max = v
    }
    // A log axis only pays when the values span more than an order of magnitude or so.
    const log = min > 0 && max / min > 20
    const showSymbol = live.count <= 60
    return {
      xAxis: { data: live.iteration.toArray() },
      yAxis: [{ type: log ? 'log' : 'value' }, {}],
      series: [
        { id: 'inertia', showSymbol, data: Array.from(inertia) },
        ...(withFraction
          ? [
              {
                id: 'fraction',
                showSymbol,
                data: Array.from(live.distanceFraction.view(), (v) => (Number.isNaN(v) ? null : v)),
              },
            ]
          : []),
        ...(withRecall
          ? [
              {
                id: 'recall',
                showSymbol,
                data: Array.from(live.assignmentRecall.view(), (v) => (Number.isNaN(v) ? null : v)),
              },
            ]
          : []),
      ],
    }
  }, [live, version, withFraction, withRecall])
  return <RunEChart base={base} data={data} height={260} label="Inertia per iteration" />
}
