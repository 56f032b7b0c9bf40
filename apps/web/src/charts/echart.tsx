import type { EChartsCoreOption } from 'echarts/core'
import { useEffect, useRef } from 'react'
import { echarts } from './echarts.ts'

/**
 * A canvas ECharts instance bound to a div: created on mount, given `option` whenever it changes,
 * resized with its box, disposed on unmount. `notMerge: false` merges a new option into the old
 * one (cheap for live charts whose series only grow); `onClick` receives a clicked item's data index.
 */
export function EChart(props: {
  option: EChartsCoreOption
  height: number
  label: string
  notMerge?: boolean
  onClick?: (dataIndex: number) => void
}) {
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

  const notMerge = props.notMerge ?? true
  useEffect(() => {
    chartRef.current?.setOption(props.option, { notMerge })
  }, [props.option, notMerge])

  const onClick = props.onClick
  useEffect(() => {
    const chart = chartRef.current
    if (!chart || !onClick) return
    const handler = (params: { dataIndex?: number }) => {
      if (typeof params.dataIndex === 'number') onClick(params.dataIndex)
    }
    chart.on('click', handler)
    return () => {
      chart.off('click', handler)
    }
  }, [onClick])

  return (
    <div ref={ref} className="chart" style={{ height: props.height }} role="img" aria-label={props.label} />
  )
}
