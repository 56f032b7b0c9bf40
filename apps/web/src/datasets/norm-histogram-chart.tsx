import type { VectorStats } from '@codebook/shared'
import type { EChartsCoreOption } from 'echarts/core'
import { useMemo } from 'react'
import { EChart } from '../charts/echart.tsx'
import { chartColors } from '../charts/echarts.ts'
import { decimalsFor, formatCount, formatFixed } from '../lib/format.ts'

/** Bar chart of the L2-norm histogram (`edges` has one more entry than `counts`). */
export function NormHistogramChart(props: { histogram: VectorStats['norms']['histogram'] }) {
  const option = useMemo<EChartsCoreOption>(() => {
    const { edges, counts } = props.histogram
    const decimals = decimalsFor(edges)
    const labels = counts.map((_, i) => formatFixed(((edges[i] ?? 0) + (edges[i + 1] ?? 0)) / 2, decimals))
    return {
      animation: false,
      grid: { left: 56, right: 16, top: 16, bottom: 36 },
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        formatter: (params: Array<{ dataIndex: number }>) => {
          const i = params[0]?.dataIndex ?? 0
          return `‖x‖ ∈ [${formatFixed(edges[i] ?? 0, decimals)}, ${formatFixed(edges[i + 1] ?? 0, decimals)})<br/><b>${formatCount(counts[i] ?? 0)}</b> vectors`
        },
      },
      xAxis: {
        type: 'category',
        data: labels,
        name: 'L2 norm',
        nameLocation: 'middle',
        nameGap: 24,
        axisTick: { alignWithLabel: true },
        axisLine: { lineStyle: { color: chartColors.grid } },
        axisLabel: { color: chartColors.muted, hideOverlap: true },
        nameTextStyle: { color: chartColors.muted },
      },
      yAxis: {
        type: 'value',
        splitLine: { lineStyle: { color: chartColors.grid } },
        axisLabel: { color: chartColors.muted },
      },
      series: [
        {
          type: 'bar',
          data: counts,
          barCategoryGap: '8%',
          itemStyle: { color: chartColors.accent, borderRadius: [2, 2, 0, 0] },
        },
      ],
    }
  }, [props.histogram])
  return <EChart option={option} height={280} label="Histogram of vector L2 norms" />
}
