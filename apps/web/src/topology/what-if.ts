import type { SimulatedBroadcast, SimulatedBroadcastRow, SimulateKmeansResult } from '@codebook/shared'

/** Broadcast sizes offered by the what-if panel, bytes (decimal units, as the papers quote them). */
export const BROADCAST_SIZES = [
  { label: '1 MB', bytes: 1e6 },
  { label: '10 MB', bytes: 1e7 },
  { label: '100 MB', bytes: 1e8 },
  { label: '1 GB', bytes: 1e9 },
  { label: '10 GB', bytes: 1e10 },
] as const

/** Pipeline chunk sizes the panel offers (`chunkBytes`); the transport's 512 KiB is the default. */
export const CHUNK_SIZES = [
  { label: '64 KiB', bytes: 64 * 1024 },
  { label: '512 KiB (transport default)', bytes: 512 * 1024 },
  { label: '4 MiB', bytes: 4 * 1024 * 1024 },
  { label: '16 MiB', bytes: 16 * 1024 * 1024 },
  { label: '64 MiB', bytes: 64 * 1024 * 1024 },
] as const

/** The transport's chunk, the simulator's default. */
export const DEFAULT_CHUNK_BYTES = 512 * 1024

/**
 * What to change in the What-if form after the server refused a simulation: the server names
 * its request fields (`chunkBytes`, nodes); the panel names its own controls.
 */
export function whatIfErrorHint(error: unknown, part: 'broadcast' | 'kmeans'): string | null {
  const e = error as { code?: unknown; message?: unknown } | null
  if (e?.code !== 'SIM_TOO_LARGE') return null
  if (typeof e.message === 'string' && e.message.includes('all-to-all'))
    return 'In this form: choose Aggregation ring or allreduce, then predict again.'
  return part === 'broadcast'
    ? 'In this form: choose a larger Chunk (each chunk is one simulated message) or a smaller Size, then simulate again.'
    : 'In this form: choose a larger Chunk, or a smaller k or d (the centroids broadcast is k × d × 4 bytes), then predict again.'
}

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
