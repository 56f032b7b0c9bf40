import type { GridCell, StudyAlgorithm, StudyRow } from '@codebook/shared'
import { studyAlgorithms } from '@codebook/shared'
import type { EChartsCoreOption } from 'echarts/core'

// The theme's colours (theme.css); repeated here so this module stays free of ECharts' runtime.
const GRID = '#eceef3'
const TEXT = '#374151'

/** The paper's names of the four reductions. */
export const algorithmLabels: Record<StudyAlgorithm, string> = {
  binomial: 'Binomial-stat',
  fibonacci: 'Fibonacci-stat',
  'tree-dyn': 'Tree-dyn',
  'noncommut-tree-dyn': 'Non-Commut-Tree-dyn',
}

/** One colour per algorithm, the same in every chart and legend. */
export const algorithmColors: Record<StudyAlgorithm, string> = {
  binomial: '#2f5bea',
  fibonacci: '#d97706',
  'tree-dyn': '#059669',
  'noncommut-tree-dyn': '#9333ea',
}

/** One algorithm's Figure 3 curve at one μc: (cv, mean, q10, q90) in ascending CV. */
export interface Figure3Curve {
  algorithm: StudyAlgorithm
  points: { cv: number; mean: number; q10: number; q90: number }[]
}

/** The μc values of a reductions study's rows, ascending (Figure 3 draws one μc at a time). */
export function computeMeansOf(rows: readonly StudyRow[]): number[] {
  return [...new Set(rows.map((r) => r.muC))].sort((a, b) => a - b)
}

/** The Figure 3 curves at `muC`, one per algorithm present, in the runtime's algorithm order. */
export function figure3Curves(rows: readonly StudyRow[], muC: number): Figure3Curve[] {
  return studyAlgorithms.flatMap((algorithm) => {
    const points = rows
      .filter((r) => r.algorithm === algorithm && r.muC === muC)
      .map(({ cv, mean, q10, q90 }) => ({ cv, mean, q10, q90 }))
      .sort((a, b) => a.cv - b.cv)
    return points.length === 0 ? [] : [{ algorithm, points }]
  })
}

/**
 * ECharts option of Figure 3: per algorithm the mean makespan against CV on a log₁₀ CV axis,
 * with its 10–90 % band (a transparent line at q10 and a filled area of height q90 − q10 stacked
 * on it). Makespans are in units of the mean communication cost μd; `logMakespan` puts them on a
 * log₁₀ axis too (only meaningful when every q10 is positive: see {@link canLogMakespan}).
 */
export function figure3Option(curves: readonly Figure3Curve[], logMakespan = false): EChartsCoreOption {
  const series = curves.flatMap(({ algorithm, points }) => {
    const color = algorithmColors[algorithm]
    const name = algorithmLabels[algorithm]
    const band = `band-${algorithm}`
    return [
      {
        name,
        type: 'line',
        data: points.map((p) => [p.cv, p.q10]),
        stack: band,
        color,
        symbol: 'none',
        lineStyle: { opacity: 0 },
        tooltip: { show: false },
        silent: true,
      },
      {
        name,
        type: 'line',
        data: points.map((p) => [p.cv, p.q90 - p.q10]),
        stack: band,
        color,
        symbol: 'none',
        lineStyle: { opacity: 0 },
        areaStyle: { color, opacity: 0.1 },
        tooltip: { show: false },
        silent: true,
      },
      {
        name,
        type: 'line',
        data: points.map((p) => [p.cv, p.mean]),
        color,
        symbolSize: 6,
        lineStyle: { width: 2 },
      },
    ]
  })
  return {
    animation: false,
    grid: { left: 60, right: 24, top: 40, bottom: 48 },
    legend: { top: 0, data: curves.map((c) => algorithmLabels[c.algorithm]), textStyle: { color: TEXT } },
    tooltip: { trigger: 'item', valueFormatter: (v: number) => v.toFixed(3) },
    xAxis: {
      type: 'log',
      logBase: 10,
      name: 'coefficient of variation',
      nameLocation: 'middle',
      nameGap: 28,
      splitLine: { lineStyle: { color: GRID } },
    },
    yAxis: {
      type: logMakespan ? 'log' : 'value',
      name: 'makespan (× μd)',
      scale: true,
      splitLine: { lineStyle: { color: GRID } },
    },
    series,
  }
}

/**
 * Whether the makespans fit a log axis: every q10 positive (at CV 10 the gamma shape is 0.01 and
 * small n can give q10 = 0, which a log axis cannot place).
 */
export function canLogMakespan(curves: readonly Figure3Curve[]): boolean {
  return curves.every((c) => c.points.every((p) => p.q10 > 0))
}

/** Sorted distinct values of one axis of the grid cells. */
function axisValues(cells: readonly GridCell[], key: 'cv' | 'muC'): number[] {
  return [...new Set(cells.map((c) => c[key]))].sort((a, b) => a - b)
}

/** The common layout of the two Figure 4 maps: μc/μd across, CV up, both as category axes. */
function heatmapBase(cells: readonly GridCell[]) {
  const xs = axisValues(cells, 'muC')
  const ys = axisValues(cells, 'cv')
  const at = (c: GridCell) => [xs.indexOf(c.muC), ys.indexOf(c.cv)]
  return {
    at,
    option: {
      animation: false,
      grid: { left: 64, right: 24, top: 16, bottom: 96 },
      xAxis: {
        type: 'category',
        data: xs.map(String),
        name: 'μc / μd',
        nameLocation: 'middle',
        nameGap: 28,
        splitArea: { show: true },
      },
      yAxis: {
        type: 'category',
        data: ys.map(String),
        name: 'CV',
        nameLocation: 'middle',
        nameGap: 44,
        splitArea: { show: true },
      },
    },
  }
}

/**
 * Figure 4, left: mean makespan of Fibonacci-stat over that of Tree-dyn per (μc/μd, CV) cell;
 * 1 (white) splits where the static plan wins (blue, < 1) from where the dynamic tree does (red);
 * the colour scale is logarithmic and symmetric, so 1/2 and 2 are equally saturated.
 */
export function ratioHeatmapOption(cells: readonly GridCell[]): EChartsCoreOption {
  const { at, option } = heatmapBase(cells)
  // Coloured by ln(ratio) on a range symmetric about 0, so white is exactly a ratio of 1.
  const spread = Math.max(1e-3, ...cells.map((c) => Math.abs(Math.log(c.fibonacciOverTreeDyn))))
  return {
    ...option,
    tooltip: {
      formatter: (p: { data: [number, number, number, string] }) => p.data[3],
    },
    visualMap: {
      type: 'continuous',
      // The colour is ln(ratio) (dimension 2), not the tooltip text after it.
      dimension: 2,
      min: -spread,
      max: spread,
      calculable: true,
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      formatter: (v: number) => Math.exp(v).toFixed(2),
      text: ['Tree-dyn faster', 'Fibonacci-stat faster'],
      inRange: { color: ['#2f5bea', '#ffffff', '#dc2626'] },
    },
    series: [
      {
        type: 'heatmap',
        name: 'Fibonacci-stat / Tree-dyn',
        data: cells.map((c) => [
          ...at(c),
          Math.log(c.fibonacciOverTreeDyn),
          `CV ${c.cv}, μc/μd ${c.muC}: Fibonacci-stat / Tree-dyn = ${c.fibonacciOverTreeDyn.toFixed(3)}`,
        ]),
      },
    ],
  }
}

/**
 * The three reductions that accept a non-commutative ⊕ (the runtime's `rankOrderedReductions`):
 * the only ones the paper's Figure 4(b) compares. Tree-dyn needs a commutative ⊕.
 */
export const nonCommutativeAlgorithms: readonly StudyAlgorithm[] = [
  'binomial',
  'fibonacci',
  'noncommut-tree-dyn',
]

/**
 * The algorithm of `among` with the lowest mean in the cell, the earlier one (in `among`) on a
 * tie, as the runtime's `bestAmong`. Every stored cell holds all four means, so the paper's
 * Figure 4(b) needs no field of its own and cells stored before it still draw.
 */
export function bestOf(cell: GridCell, among: readonly StudyAlgorithm[]): StudyAlgorithm {
  return among.reduce((a, b) => (cell.means[b] < cell.means[a] ? b : a))
}

/**
 * A Figure 4 "best algorithm" map: per (μc/μd, CV) cell the algorithm of `among` with the lowest
 * mean makespan. With all four (the default) it is the cell's stored `best`, our map beside the
 * paper's; with {@link nonCommutativeAlgorithms} it is the paper's Figure 4(b). Colours are the
 * algorithms' own in both.
 */
export function bestHeatmapOption(
  cells: readonly GridCell[],
  among: readonly StudyAlgorithm[] = studyAlgorithms,
): EChartsCoreOption {
  const { at, option } = heatmapBase(cells)
  const all = among.length === studyAlgorithms.length && studyAlgorithms.every((a) => among.includes(a))
  const shown = studyAlgorithms.filter((a) => among.includes(a))
  const bestIn = (c: GridCell) => (all ? c.best : bestOf(c, among))
  return {
    ...option,
    tooltip: {
      formatter: (p: { data: [number, number, number, string] }) => p.data[3],
    },
    visualMap: {
      type: 'piecewise',
      dimension: 2,
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      pieces: shown.map((a) => ({
        value: studyAlgorithms.indexOf(a),
        label: algorithmLabels[a],
        color: algorithmColors[a],
      })),
    },
    series: [
      {
        type: 'heatmap',
        name: all ? 'best algorithm' : 'best non-commutative algorithm',
        data: cells.map((c) => {
          const best = bestIn(c)
          return [
            ...at(c),
            studyAlgorithms.indexOf(best),
            `CV ${c.cv}, μc/μd ${c.muC}: best${all ? '' : ' non-commutative'} ${algorithmLabels[best]} (mean ${c.means[best].toFixed(3)})`,
          ]
        }),
      },
    ],
  }
}
