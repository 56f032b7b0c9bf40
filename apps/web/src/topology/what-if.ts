import type { SimulatedBroadcast, SimulatedBroadcastRow, SimulateKmeansResult } from '@codebook/shared'

/** Broadcast sizes offered by the what-if panel, bytes (decimal units, as the papers quote them). */
export const BROADCAST_SIZES = [
  { label: '1 MB', bytes: 1e6 },
  { label: '10 MB', bytes: 1e7 },
  { label: '100 MB', bytes: 1e8 },
  { label: '1 GB', bytes: 1e9 },
  { label: '10 GB', bytes: 1e10 },
] as const

/** Algorithms the panel compares, in legend order. */
export const WHAT_IF_ALGORITHMS: SimulatedBroadcast[] = ['simple', 'mst', 'bucket', 'chain', 'chain-random']

/**
 * Up to `points` node counts from 2 to `total`, evenly spaced and always ending at `total`
 * (e.g. 150 → 25, 50, …, 150), so the chart shows how each algorithm scales on this topology.
 */
export function nodeCounts(total: number, points = 6): number[] {
  if (total < 1) return []
  const out = new Set<number>()
  // A broadcast to one node (the root alone) costs nothing: start at 2 when there are 2 or more.
  const least = Math.min(2, total)
  for (let i = 1; i <= points; i++) out.add(Math.max(least, Math.round((total * i) / points)))
  return [...out].sort((a, b) => a - b)
}

/**
 * Pivots simulator rows into one series per algorithm over the node counts (x axis); a missing
 * cell is null so the line shows a gap rather than a made-up value.
 */
export function broadcastSeries(rows: SimulatedBroadcastRow[]): {
  nodes: number[]
  series: { algorithm: SimulatedBroadcast; seconds: (number | null)[] }[]
} {
  const nodes = [...new Set(rows.map((r) => r.nodes))].sort((a, b) => a - b)
  const algorithms = [...new Set(rows.map((r) => r.algorithm))]
  const cell = new Map(rows.map((r) => [`${r.algorithm}@${r.nodes}`, r.seconds]))
  return {
    nodes,
    series: algorithms.map((algorithm) => ({
      algorithm,
      seconds: nodes.map((n) => cell.get(`${algorithm}@${n}`) ?? null),
    })),
  }
}

/** K-means stages in the order they run (stack order of the bars). */
export const KMEANS_STAGES = ['broadcast', 'map', 'regroup', 'combine'] as const

/** One stacked series per stage over the compared predictions (one bar per prediction). */
export function kmeansSeries(results: SimulateKmeansResult[]): { stage: string; seconds: number[] }[] {
  return KMEANS_STAGES.map((stage) => ({ stage, seconds: results.map((r) => r.stages[stage].seconds) }))
}

/** Seconds for a chart label or table cell: 3 significant digits, µs/ms below a second. */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '—'
  if (s === 0) return '0 s'
  if (s < 1e-3) return `${(s * 1e6).toPrecision(3)} µs`
  if (s < 1) return `${(s * 1e3).toPrecision(3)} ms`
  return `${s.toPrecision(3)} s`
}

/** The tooltip of a bar chart in seconds: the hovered category's values, formatted. */
export const secondsBarTooltip = {
  trigger: 'axis',
  axisPointer: { type: 'shadow' },
  valueFormatter: (v: unknown) => (typeof v === 'number' ? formatSeconds(v) : '—'),
} as const
