import type { EChartsCoreOption } from 'echarts/core'
import { type RefObject, useEffect, useRef } from 'react'
import { echarts } from './echarts.ts'

/**
 * A canvas ECharts instance bound to the div of `ref`: created on mount, resized with its box,
 * disposed on unmount. Returns the ref holding the instance (null before mount and after).
 */
export function useEChartInstance(ref: RefObject<HTMLDivElement | null>): RefObject<echarts.ECharts | null> {
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
  }, [ref])
  return chartRef
}

/** Calls `onClick` with the data index of a clicked chart item. */
export function useEChartClick(
  chartRef: RefObject<echarts.ECharts | null>,
  onClick: ((dataIndex: number) => void) | undefined,
): void {
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
  }, [chartRef, onClick])
}

/**
 * A chart given `option` whenever it changes. `notMerge: false` merges a new option into the old
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
  const chartRef = useEChartInstance(ref)

  const notMerge = props.notMerge ?? true
  useEffect(() => {
    chartRef.current?.setOption(props.option, { notMerge })
  }, [chartRef, props.option, notMerge])

  useEChartClick(chartRef, props.onClick)

  return (
    <div ref={ref} className="chart" style={{ height: props.height }} role="img" aria-label={props.label} />
  )
}
