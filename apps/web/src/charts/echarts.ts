import { BarChart, HeatmapChart, LineChart } from 'echarts/charts'
import {
  GridComponent,
  LegendComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
  VisualMapPiecewiseComponent,
} from 'echarts/components'
import * as echarts from 'echarts/core'
import { CanvasRenderer } from 'echarts/renderers'

// Register only what the charts use, so the bundle carries a fraction of ECharts.
echarts.use([
  BarChart,
  HeatmapChart,
  LineChart,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  VisualMapContinuousComponent,
  VisualMapPiecewiseComponent,
  CanvasRenderer,
])

/** ECharts core with the bar, line and heat-map charts, visual maps, grid, legend, tooltip and canvas renderer registered. */
export { echarts }

/** Colours of the charts, matching the CSS variables of theme.css. */
export const chartColors = {
  accent: '#2f5bea',
  accentSoft: 'rgba(47, 91, 234, 0.2)',
  accentLine: 'rgba(47, 91, 234, 0.45)',
  muted: '#6b7280',
  grid: '#eceef3',
  text: '#374151',
} as const

/** A value axis named `name` in the charts' muted labels and grid lines. */
export function valueAxis(name: string): Record<string, unknown> {
  return {
    type: 'value',
    name,
    axisLabel: { color: chartColors.muted },
    splitLine: { lineStyle: { color: chartColors.grid } },
  }
}
