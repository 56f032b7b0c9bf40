/**
 * Draws the mapping charts docs/reproductions.md shows (SVG, echarts server-side rendering) from the
 * JSON `reproduce.ts` writes. The paper's figures are not reproduced as data here (we have its
 * stated claims only): each chart marks the claim it is compared with.
 *
 *   npx tsx bench/mapping/charts.ts --data ../../docs/data/mapping-ec2-4.json --out ../../docs/img
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import * as echarts from 'echarts'

const { values } = parseArgs({
  options: { data: { type: 'string', default: 'mapping-data.json' }, out: { type: 'string', default: '.' } },
})

interface Data {
  date: string
  samples: number
  seeds: number[]
  perPattern: {
    pattern: string
    gainOverRandom: number
    gainOverGreedy: number
    gainOverMpipp: number
    fractionBetterThanGeo: number
    refinedGainOverRandom: number
    refinedGainOverMpipp: number
  }[]
  perScale: {
    pattern: string
    processes: number
    gainOverRandom: number
    refinedGainOverRandom: number
    gainOverGreedy: number
  }[]
  cdf: Record<string, number[]>
  bestOfK: Record<string, { k: number; best: number }[]>
}
const data = JSON.parse(await readFile(values.data, 'utf8')) as Data
/** echarts' default palette, so a pattern's geo and geo-refined lines share a colour. */
const PALETTE = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4']
const pct = (x: number) => Math.round(x * 1000) / 10
const footnote = (text: string) => ({
  text,
  left: 'center',
  bottom: 4,
  textStyle: { fontSize: 11, fontWeight: 'normal' as const, color: '#555' },
})

async function render(file: string, option: echarts.EChartsOption, width = 760, height = 420) {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height })
  chart.setOption({ animation: false, backgroundColor: '#fff', ...option })
  const title = (option.title as { text: string }[])[0]!.text
  // A static image: drop echarts' hover styles (a CDATA block biome cannot parse) and give the
  // SVG a <title>, as the other charts under docs/img have.
  const svg = chart
    .renderToSVGString()
    .replace(/<style[^>]*>[\s\S]*?<\/style>\s*/g, '')
    .replace(/^(<svg[^>]*>)/, `$1\n<title>${title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</title>`)
  await writeFile(join(values.out, file), svg)
  chart.dispose()
}

// Figure 6: gain of geo per pattern over each baseline; the paper's averages as lines.
await render('mapping-fig6-gain-per-pattern.svg', {
  title: [
    {
      text: 'Fig. 6 — gain of geo and geo-refined per pattern (64 ranks, 4 × 16 nodes, ec2-4, 20 % pinned)',
      left: 'center',
      top: 6,
      textStyle: { fontSize: 14 },
    },
    footnote(
      `Codebook ${data.date.slice(0, 10)}, mean of seeds ${data.seeds.join(', ')}; dashed: the paper's averages (> 60 % over random, ≈ 50 % over the state of the art)`,
    ),
  ],
  legend: { top: 34 },
  grid: { top: 84, bottom: 70, left: 60, right: 30 },
  xAxis: { type: 'category', data: data.perPattern.map((r) => r.pattern) },
  yAxis: { type: 'value', name: 'gain %', min: -50, max: 100, interval: 25 },
  series: [
    {
      name: 'geo over random',
      type: 'bar',
      data: data.perPattern.map((r) => pct(r.gainOverRandom)),
      markLine: {
        symbol: 'none',
        lineStyle: { type: 'dashed' },
        data: [{ yAxis: 60, name: 'paper vs random' }],
        label: { formatter: 'paper: random 60 %', position: 'insideStartTop' },
      },
    },
    { name: 'geo over Greedy', type: 'bar', data: data.perPattern.map((r) => pct(r.gainOverGreedy)) },
    { name: 'geo over MPIPP', type: 'bar', data: data.perPattern.map((r) => pct(r.gainOverMpipp)) },
    {
      name: 'geo-refined over random',
      type: 'bar',
      data: data.perPattern.map((r) => pct(r.refinedGainOverRandom)),
    },
    {
      name: 'geo-refined over MPIPP',
      type: 'bar',
      data: data.perPattern.map((r) => pct(r.refinedGainOverMpipp)),
      markLine: {
        symbol: 'none',
        lineStyle: { type: 'dashed' },
        data: [{ yAxis: 50 }],
        label: { formatter: 'paper: state of the art 50 %', position: 'insideStartBottom' },
      },
    },
  ],
})

// Figure 7: gain over random vs scale.
const scalePatterns = [...new Set(data.perScale.map((r) => r.pattern))]
await render('mapping-fig7-gain-vs-scale.svg', {
  title: [
    {
      text: 'Fig. 7 — gain over random vs number of processes (4 sites): geo solid, geo-refined dashed',
      left: 'center',
      top: 6,
      textStyle: { fontSize: 14 },
    },
    footnote(
      'Codebook, seed 1, random = mean of 100 random mappings; the flat dashed line: the paper (> 50 % at 8,192 processes)',
    ),
  ],
  legend: { top: 34 },
  grid: { top: 84, bottom: 70, left: 60, right: 30 },
  xAxis: {
    type: 'log',
    logBase: 2,
    name: 'processes',
    nameLocation: 'middle',
    nameGap: 26,
    min: 64,
    max: 8192,
  },
  yAxis: { type: 'value', name: 'gain %', min: 0, max: 100 },
  series: scalePatterns.flatMap((p, i) => [
    {
      name: p,
      type: 'line' as const,
      color: PALETTE[i % PALETTE.length],
      data: data.perScale.filter((r) => r.pattern === p).map((r) => [r.processes, pct(r.gainOverRandom)]),
    },
    {
      name: p,
      type: 'line' as const,
      color: PALETTE[i % PALETTE.length],
      lineStyle: { type: 'dashed' as const },
      data: data.perScale
        .filter((r) => r.pattern === p)
        .map((r) => [r.processes, pct(r.refinedGainOverRandom)]),
      ...(i === 0
        ? {
            markLine: {
              symbol: 'none',
              lineStyle: { type: 'dashed' },
              data: [{ yAxis: 50 }],
              label: { formatter: 'paper ≥ 50 %', position: 'insideStartTop' },
            },
          }
        : {}),
    },
  ]),
})

// Figure 9: CDF of random mappings' cost relative to geo's.
await render('mapping-fig9-random-cdf.svg', {
  title: [
    {
      text: `Fig. 9 — CDF of ${data.samples.toLocaleString('en')} random mappings' cost ÷ geo's (64 ranks)`,
      left: 'center',
      top: 6,
      textStyle: { fontSize: 14 },
    },
    footnote(
      'Left of the dashed line: random mappings cheaper than geo. Paper: < 1 % on LU, < 0.1 % on K-means and DNN',
    ),
  ],
  legend: { top: 34 },
  grid: { top: 84, bottom: 70, left: 60, right: 30 },
  xAxis: {
    type: 'value',
    name: 'cost ÷ geo',
    nameLocation: 'middle',
    nameGap: 26,
    min: 0.8,
    max: Math.ceil(Math.max(...Object.values(data.cdf).flat())),
  },
  yAxis: { type: 'value', name: 'fraction', min: 0, max: 1 },
  series: Object.entries(data.cdf).map(([p, xs], i) => ({
    name: p,
    type: 'line',
    showSymbol: false,
    data: xs.map((x, q) => [x, q / (xs.length - 1)]),
    ...(i === 0
      ? {
          markLine: {
            symbol: 'none',
            lineStyle: { type: 'dashed' },
            data: [{ xAxis: 1 }],
            label: { formatter: 'geo' },
          },
        }
      : {}),
  })),
})

// Figure 10: best of K random mappings relative to geo, vs K.
await render('mapping-fig10-best-of-k.svg', {
  title: [
    {
      text: 'Fig. 10 — best of K random mappings ÷ geo, vs K (64 ranks)',
      left: 'center',
      top: 6,
      textStyle: { fontSize: 14 },
    },
    footnote('Above the dashed line the best of the first K random mappings is still worse than geo'),
  ],
  legend: { top: 34 },
  grid: { top: 84, bottom: 70, left: 60, right: 30 },
  xAxis: { type: 'log', name: 'K', nameLocation: 'middle', nameGap: 26, min: 1, max: data.samples },
  yAxis: { type: 'value', name: 'best ÷ geo', min: 0.8 },
  series: Object.entries(data.bestOfK).map(([p, points], i) => ({
    name: p,
    type: 'line',
    showSymbol: false,
    data: points.map((x) => [x.k, Math.round(x.best * 1000) / 1000]),
    ...(i === 0
      ? {
          markLine: {
            symbol: 'none',
            lineStyle: { type: 'dashed' },
            data: [{ yAxis: 1 }],
            label: { formatter: 'geo' },
          },
        }
      : {}),
  })),
})
