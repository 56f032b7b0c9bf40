import type { EvaluationKResult } from '@codebook/shared'
import type { EChartsCoreOption } from 'echarts/core'

// The theme's colours (theme.css); repeated here so this module stays free of ECharts' runtime.
const ACCENT = '#2f5bea'
const MUTED = '#6b7280'
const GRID = '#eceef3'
const TEXT = '#374151'
const STORED = '#d97706'

/** (k, accuracy) points in ascending k, one per finished vocabulary size. */
export function accuracyPoints(
  results: readonly Pick<EvaluationKResult, 'k' | 'accuracy'>[],
): [number, number][] {
  return results.map((r): [number, number] => [r.k, r.accuracy]).sort((a, b) => a[0] - b[0])
}

/**
 * The k axis range: whole powers of two around every planned k, so the axis is fixed from the
 * start and points appear in place as vocabularies finish (a log₂ axis puts ×2 steps evenly apart).
 */
export function kAxisRange(plannedKs: readonly number[]): { min: number; max: number } {
  if (plannedKs.length === 0) return { min: 1, max: 2 }
  const lo = 2 ** Math.floor(Math.log2(Math.min(...plannedKs)))
  let hi = 2 ** Math.ceil(Math.log2(Math.max(...plannedKs)))
  if (hi <= lo) hi = lo * 2
  return { min: lo, max: hi }
}

const AXIS_PAD = 2 ** 0.25

/** Whether v is (to rounding) a whole power of two: the k axis labels only those. */
export function isPowerOfTwo(v: number): boolean {
  const e = Math.log2(v)
  return Math.abs(e - Math.round(e)) < 1e-9
}

/** Accuracy as a percentage with one decimal ("87.4%"). */
export function formatAccuracy(accuracy: number): string {
  return `${(accuracy * 100).toFixed(1)}%`
}

/**
 * ECharts option of the accuracy-versus-vocabulary-size chart: test accuracy per finished k on
 * a log₂ k axis spanning the planned sizes, each point labelled with its accuracy, and the chance
 * level (1 / classes) as a dashed reference line. Stored vocabularies (`vocabularyId`) are their
 * own unconnected points at their k, not part of the learned curve.
 */
export function accuracyChartOption(
  results: readonly Pick<EvaluationKResult, 'k' | 'accuracy' | 'vocabularyId'>[],
  plannedKs: readonly number[],
  classCount: number,
): EChartsCoreOption {
  const range = kAxisRange([...plannedKs, ...results.map((r) => r.k)])
  const chance = classCount > 0 ? 1 / classCount : null
  return {
    animation: false,
    grid: { left: 56, right: 24, top: 36, bottom: 44 },
    legend: { top: 0, textStyle: { color: TEXT } },
    tooltip: {
      trigger: 'item',
      formatter: (p: { seriesName: string; value: [number, number] }) =>
        `${p.seriesName}<br/>k = ${p.value[0]}: ${formatAccuracy(p.value[1])}`,
    },
    xAxis: {
      type: 'log',
      logBase: 2,
      // A quarter octave of margin so the end points and their labels clear the axes.
      min: range.min / AXIS_PAD,
      max: range.max * AXIS_PAD,
      name: 'vocabulary size k (log scale)',
      nameLocation: 'middle',
      nameGap: 28,
      axisLabel: { color: MUTED, formatter: (v: number) => (isPowerOfTwo(v) ? String(Math.round(v)) : '') },
      splitLine: { lineStyle: { color: GRID } },
    },
    yAxis: {
      type: 'value',
      min: 0,
      max: 1,
      name: 'test accuracy',
      axisLabel: { color: MUTED, formatter: (v: number) => `${Math.round(v * 100)}%` },
      splitLine: { lineStyle: { color: GRID } },
    },
    series: [
      {
        name: 'accuracy',
        type: 'line',
        color: ACCENT,
        symbolSize: 9,
        label: {
          show: true,
          position: 'top',
          formatter: (p: { value: [number, number] }) => formatAccuracy(p.value[1]),
        },
        data: accuracyPoints(results.filter((r) => r.vocabularyId === undefined)),
      },
      ...(results.some((r) => r.vocabularyId !== undefined)
        ? [
            {
              name: 'stored vocabularies',
              type: 'line',
              color: STORED,
              symbol: 'diamond',
              symbolSize: 11,
              lineStyle: { width: 0 },
              label: {
                show: true,
                position: 'bottom',
                formatter: (p: { value: [number, number] }) => formatAccuracy(p.value[1]),
              },
              data: accuracyPoints(results.filter((r) => r.vocabularyId !== undefined)),
            },
          ]
        : []),
      ...(chance === null
        ? []
        : [
            {
              name: `chance (1/${classCount})`,
              type: 'line',
              color: MUTED,
              symbol: 'none',
              lineStyle: { type: 'dashed', width: 1 },
              data: [
                [range.min / AXIS_PAD, chance],
                [range.max * AXIS_PAD, chance],
              ],
            },
          ]),
    ],
  }
}

/**
 * ECharts option of the per-class accuracy (recall) bars of one k. A class without test images
 * (null) gets no bar rather than a misleading zero.
 */
export function perClassChartOption(
  perClass: readonly (number | null)[],
  classes: readonly string[],
): EChartsCoreOption {
  const names = perClass.map((_, i) => classes[i] ?? String(i))
  return {
    animation: false,
    grid: { left: 56, right: 16, top: 16, bottom: 36 },
    tooltip: {
      trigger: 'axis',
      formatter: (ps: { name: string; value: number | '-' }[]) => {
        const p = ps[0]
        if (!p) return ''
        return `class ${p.name}: ${p.value === '-' ? 'no test image' : formatAccuracy(p.value)}`
      },
    },
    xAxis: {
      type: 'category',
      name: 'class',
      nameLocation: 'middle',
      nameGap: 24,
      data: names,
      axisLabel: { color: MUTED },
    },
    yAxis: {
      type: 'value',
      min: 0,
      max: 1,
      axisLabel: { color: MUTED, formatter: (v: number) => `${Math.round(v * 100)}%` },
      splitLine: { lineStyle: { color: GRID } },
    },
    series: [
      {
        name: 'accuracy',
        type: 'bar',
        color: ACCENT,
        barMaxWidth: 36,
        data: perClass.map((v) => (v === null ? '-' : v)),
      },
    ],
  }
}
