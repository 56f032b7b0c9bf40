import type { VectorStats } from '@codebook/shared'
import type { EChartsCoreOption } from 'echarts/core'
import { useMemo } from 'react'
import { EChart } from '../charts/echart.tsx'
import { chartColors } from '../charts/echarts.ts'
import { formatValue } from '../lib/format.ts'

/**
 * Per-dimension min–max band with the mean as a line, over the dimension index. The band is drawn
 * as `min` (invisible) plus a stacked `max − min` area; stackStrategy 'all' keeps it right when
 * values are negative.
 */
export function DimensionRangeChart(props: { dims: VectorStats['dims'] }) {
  const option = useMemo<EChartsCoreOption>(() => {
    const { min, max, mean } = props.dims
    const index = mean.map((_, i) => i)
    const span = max.map((v, i) => v - (min[i] ?? 0))
    return {
      animation: false,
      grid: { left: 56, right: 16, top: 28, bottom: 36 },
      legend: {
        top: 0,
        right: 8,
        itemWidth: 14,
        itemHeight: 8,
        textStyle: { color: chartColors.muted },
        data: ['mean', 'min–max'],
      },
      tooltip: {
        trigger: 'axis',
        formatter: (params: Array<{ dataIndex: number }>) => {
          const i = params[0]?.dataIndex ?? 0
          return `dim <b>${i}</b><br/>min ${formatValue(min[i] ?? 0)}<br/>mean ${formatValue(mean[i] ?? 0)}<br/>max ${formatValue(max[i] ?? 0)}`
        },
      },
      xAxis: {
        type: 'category',
        data: index,
        name: 'dimension',
        nameLocation: 'middle',
        nameGap: 24,
        boundaryGap: false,
        axisLine: { lineStyle: { color: chartColors.grid } },
        axisLabel: { color: chartColors.muted, hideOverlap: true },
        nameTextStyle: { color: chartColors.muted },
      },
      yAxis: {
        type: 'value',
        scale: true,
        splitLine: { lineStyle: { color: chartColors.grid } },
        axisLabel: { color: chartColors.muted },
      },
      series: [
        {
          name: 'min',
          type: 'line',
          data: min,
          stack: 'band',
          stackStrategy: 'all',
          symbol: 'none',
          lineStyle: { opacity: 0 },
          silent: true,
        },
        {
          name: 'min–max',
          type: 'line',
          data: span,
          stack: 'band',
          stackStrategy: 'all',
          symbol: 'none',
          lineStyle: { opacity: 0 },
          areaStyle: { color: chartColors.accentSoft },
          itemStyle: { color: chartColors.accentSoft },
          silent: true,
        },
        {
          name: 'mean',
          type: 'line',
          data: mean,
          symbol: 'none',
          lineStyle: { width: 1.5, color: chartColors.accent },
          itemStyle: { color: chartColors.accent },
        },
      ],
    }
  }, [props.dims])
  return <EChart option={option} height={220} label="Per-dimension minimum, mean and maximum" />
}
