import type { GridCell, StudyRow } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import {
  bestHeatmapOption,
  bestOf,
  canLogMakespan,
  computeMeansOf,
  figure3Curves,
  figure3Option,
  nonCommutativeAlgorithms,
  ratioHeatmapOption,
} from './study-charts.ts'

const row = (algorithm: StudyRow['algorithm'], cv: number, muC: number, mean: number): StudyRow => ({
  algorithm,
  n: 8,
  cv,
  muC,
  runs: 10,
  mean,
  q10: mean - 1,
  q90: mean + 2,
})

const cell = (cv: number, muC: number, fib: number, tree: number): GridCell => ({
  n: 8,
  cv,
  muC,
  runs: 10,
  means: { binomial: 9, fibonacci: fib, 'tree-dyn': tree, 'noncommut-tree-dyn': 9 },
  fibonacciOverTreeDyn: fib / tree,
  best: fib < tree ? 'fibonacci' : 'tree-dyn',
})

describe('Figure 3', () => {
  const rows = [
    row('tree-dyn', 10, 0, 30),
    row('binomial', 0.1, 0, 5),
    row('tree-dyn', 0.1, 0, 4),
    row('tree-dyn', 0.1, 1, 7),
  ]

  it('draws one curve per algorithm at one μc, in ascending CV and the runtime’s algorithm order', () => {
    expect(computeMeansOf(rows)).toEqual([0, 1])
    const curves = figure3Curves(rows, 0)
    expect(curves.map((c) => c.algorithm)).toEqual(['binomial', 'tree-dyn'])
    expect(curves[1]!.points.map((p) => p.cv)).toEqual([0.1, 10])
  })

  it('stacks the band as q10 plus (q90 − q10) under the mean, on a log CV axis', () => {
    const option = figure3Option(figure3Curves(rows, 0)) as {
      xAxis: { type: string }
      series: { data: number[][]; stack?: string }[]
    }
    expect(option.xAxis.type).toBe('log')
    const [lower, band, mean] = option.series.slice(3)
    expect(lower!.data).toEqual([
      [0.1, 3],
      [10, 29],
    ])
    expect(band!.data).toEqual([
      [0.1, 3],
      [10, 3],
    ])
    expect(lower!.stack).toBe(band!.stack)
    expect(mean!.data).toEqual([
      [0.1, 4],
      [10, 30],
    ])
    expect(mean!.stack).toBeUndefined()
    expect((option as unknown as { yAxis: { type: string } }).yAxis.type).toBe('value')
    const logged = figure3Option(figure3Curves(rows, 0), true) as { yAxis: { type: string } }
    expect(logged.yAxis.type).toBe('log')
  })

  it('allows a log makespan axis only when every q10 is positive', () => {
    expect(canLogMakespan(figure3Curves(rows, 0))).toBe(true)
    expect(canLogMakespan(figure3Curves([row('binomial', 10, 0, 1)], 0))).toBe(false)
  })
})

describe('Figure 4', () => {
  const cells = [cell(0.1, 1, 2, 1), cell(0.1, 10, 1, 4), cell(1, 1, 3, 3)]

  it('colours ln(Fibonacci / Tree-dyn) on a range symmetric about 0 (white at ratio 1)', () => {
    const option = ratioHeatmapOption(cells) as {
      visualMap: { min: number; max: number }
      series: { data: [number, number, number, string][] }[]
    }
    expect(option.visualMap.max).toBeCloseTo(Math.log(4))
    expect(option.visualMap.min).toBeCloseTo(-Math.log(4))
    // [μc index, CV index, ln ratio]
    expect(option.series[0]!.data.map((d) => d.slice(0, 3))).toEqual([
      [0, 0, Math.log(2)],
      [1, 0, Math.log(1 / 4)],
      [0, 1, 0],
    ])
  })

  it('maps the best algorithm to its index', () => {
    const option = bestHeatmapOption(cells) as { series: { data: [number, number, number, string][] }[] }
    expect(option.series[0]!.data.map((d) => d[2])).toEqual([2, 1, 2])
  })

  it('draws the paper’s Figure 4(b) from the means: the best of the three non-commutative algorithms', () => {
    const withMeans = (c: GridCell, nonCommut: number, binomial: number): GridCell => ({
      ...c,
      means: { ...c.means, 'noncommut-tree-dyn': nonCommut, binomial },
    })
    // Tree-dyn is fastest in the first and third cells; Figure 4(b) shows what is left:
    // Non-Commut-Tree-dyn, Fibonacci-stat, and Binomial-stat (tied with Fibonacci-stat at 3:
    // the earlier in the runtime's order).
    const mixed = [withMeans(cells[0]!, 1.5, 9), withMeans(cells[1]!, 9, 9), withMeans(cells[2]!, 9, 3)]
    const option = bestHeatmapOption(mixed, nonCommutativeAlgorithms) as {
      visualMap: { pieces: { value: number; label: string }[] }
      series: { data: [number, number, number, string][] }[]
    }
    expect(option.series[0]!.data.map((d) => d[2])).toEqual([3, 1, 0])
    expect(option.visualMap.pieces.map((p) => p.label)).toEqual([
      'Binomial-stat',
      'Fibonacci-stat',
      'Non-Commut-Tree-dyn',
    ])
    expect(option.series[0]!.data[0]![3]).toContain('best non-commutative Non-Commut-Tree-dyn (mean 1.500)')
    // The four-algorithm map beside it keeps the stored `best`.
    const all = bestHeatmapOption(mixed) as { series: { data: [number, number, number, string][] }[] }
    expect(all.series[0]!.data.map((d) => d[2])).toEqual([2, 1, 2])
  })

  it('ranks only the algorithms asked for, lowest mean first', () => {
    const c = {
      ...cell(3, 1, 5, 1),
      means: { binomial: 4, fibonacci: 5, 'tree-dyn': 1, 'noncommut-tree-dyn': 2 },
    }
    expect(bestOf(c, nonCommutativeAlgorithms)).toBe('noncommut-tree-dyn')
    expect(bestOf(c, ['binomial', 'fibonacci'])).toBe('binomial')
  })
})
