import type { EChartsCoreOption } from 'echarts/core'
import { useEffect, useRef } from 'react'
import { echarts } from './echarts.ts'

/**
 * A canvas ECharts instance bound to a div: created on mount, given `option` whenever it changes,
 * resized with its box, disposed on unmount.
 */
export function EChart(props: { option: EChartsCoreOption; height: number; label: string }) {
  const ref = useRef<HTMLDivElement>(null)
  const chartRef = useRef<echarts.ECharts | null>(null)

  useEffect(() => {
    const el = ref.current
    if (!el) return
    const chart = echarts.init(el, null, { renderer: 'canvas' })
    chartRef.current = chart
    const observer = new ResizeObserver(() => chart.resize())
    observer.observe(el)
    return () => {
      observer.disconnect()
      chart.dispose()
      chartRef.current = null
    }
  }, [])

  useEffect(() => {
    chartRef.current?.setOption(props.option, { notMerge: true })
  }, [props.option])

  return (
    <div ref={ref} className="chart" style={{ height: props.height }} role="img" aria-label={props.label} />
  )
}
