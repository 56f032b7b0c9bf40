import { describe, expect, it } from 'vitest'
import {
  accuracyChartOption,
  accuracyPoints,
  formatAccuracy,
  isPowerOfTwo,
  kAxisRange,
  perClassChartOption,
} from './accuracy-chart.ts'

interface LineSeries {
  name: string
  type: string
  data: unknown[]
}

describe('accuracy chart', () => {
  it('spans whole powers of two around the planned sizes', () => {
    expect(kAxisRange([16, 64, 256, 1024])).toEqual({ min: 16, max: 1024 })
    expect(kAxisRange([8, 16])).toEqual({ min: 8, max: 16 })
    expect(kAxisRange([10, 100])).toEqual({ min: 8, max: 128 })
    expect(kAxisRange([16])).toEqual({ min: 16, max: 32 })
    expect(kAxisRange([])).toEqual({ min: 1, max: 2 })
  })

  it('orders points by k whatever order results arrive in', () => {
    expect(
      accuracyPoints([
        { k: 256, accuracy: 0.87 },
        { k: 16, accuracy: 0.63 },
        { k: 64, accuracy: 0.8 },
      ]),
    ).toEqual([
      [16, 0.63],
      [64, 0.8],
      [256, 0.87],
    ])
  })

  it('builds a log₂ k axis fixed to the plan, the finished points and the chance line', () => {
    const option = accuracyChartOption([{ k: 16, accuracy: 0.63 }], [16, 64, 256], 10) as {
      xAxis: { type: string; logBase: number; min: number; max: number }
      yAxis: { min: number; max: number }
      series: LineSeries[]
    }
    expect(option.xAxis).toMatchObject({ type: 'log', logBase: 2 })
    // A quarter octave of margin either side of the planned range.
    expect(Math.log2(option.xAxis.min)).toBeCloseTo(4 - 0.25, 12)
    expect(Math.log2(option.xAxis.max)).toBeCloseTo(8 + 0.25, 12)
    expect(option.yAxis).toMatchObject({ min: 0, max: 1 })
    expect(option.series[0]?.data).toEqual([[16, 0.63]])
    expect(option.series[1]?.name).toBe('chance (1/10)')
    expect(option.series[1]?.data).toEqual([
      [option.xAxis.min, 0.1],
      [option.xAxis.max, 0.1],
    ])
  })

  it('shows no chance line without classes, and an empty series before any result', () => {
    const option = accuracyChartOption([], [8, 16], 0) as { series: LineSeries[] }
    expect(option.series).toHaveLength(1)
    expect(option.series[0]?.data).toEqual([])
  })

  it('draws stored vocabularies as their own points, off the learned curve', () => {
    const option = accuracyChartOption(
      [
        { k: 16, accuracy: 0.6 },
        { k: 16, accuracy: 0.7, vocabularyId: 'v1' },
        { k: 64, accuracy: 0.8 },
      ],
      [16, 64],
      10,
    ) as { series: LineSeries[] }
    expect(option.series.map((s) => s.name)).toEqual(['accuracy', 'stored vocabularies', 'chance (1/10)'])
    expect(option.series[0]?.data).toEqual([
      [16, 0.6],
      [64, 0.8],
    ])
    expect(option.series[1]?.data).toEqual([[16, 0.7]])
  })

  it('labels only whole powers of two on the k axis', () => {
    expect([1, 2, 16, 1024, 2 ** 0.25, 12, 2 ** 4.5].map(isPowerOfTwo)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ])
  })

  it('formats accuracy as a percentage with one decimal', () => {
    expect(formatAccuracy(0.8735)).toBe('87.4%')
    expect(formatAccuracy(1)).toBe('100.0%')
  })

  it('draws per-class bars named by class, leaving classes without test images empty', () => {
    const option = perClassChartOption([0.9, null, 0.5], ['zero', 'one']) as {
      xAxis: { data: string[] }
      series: LineSeries[]
    }
    expect(option.xAxis.data).toEqual(['zero', 'one', '2'])
    expect(option.series[0]?.data).toEqual([0.9, '-', 0.5])
  })
})
