import type { Run } from '@codebook/shared'

/** The run ids of `?ids=a,b,c`, deduplicated, in order. */
export function parseCompareIds(search: string): string[] {
  const raw = new URLSearchParams(search).get('ids') ?? ''
  return [
    ...new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ]
}

/** The compare page's link for a selection of runs. */
export function compareHref(ids: readonly string[]): string {
  return `/runs/compare?ids=${ids.map(encodeURIComponent).join(',')}`
}

/** Legend label of a run: short id, k, broadcast and aggregation. */
export function compareLabel(run: Run): string {
  return `${run.id.slice(0, 8)} · k=${run.params.k} · ${run.params.broadcast}/${run.params.aggregation}`
}
