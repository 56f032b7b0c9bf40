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

/** How a run's reduce/combine stage ran: its aggregation for the default `regroup`, else its tree reduction. */
export function reduceMethod(params: Run['params']): string {
  return params.reduction === 'regroup' || params.reduction === undefined
    ? params.aggregation
    : params.reduction
}

/** Legend label of a run: its name or short id, k, broadcast and aggregation (or its tree reduction). */
export function compareLabel(run: Run): string {
  const p = run.params
  return `${run.name ?? run.id.slice(0, 8)} · k=${p.k} · ${p.broadcast}/${reduceMethod(p)}`
}

/** A parameter as the diff shows it ('—' when a run does not set it). */
function paramText(v: unknown): string {
  if (v === undefined || v === null) return '—'
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/**
 * The parameters of `runs` side by side: `differ` has one row per parameter whose value is not
 * the same in every run (a value per run, in order), `same` the ones they share.
 */
export function diffParams(runs: readonly Pick<Run, 'datasetId' | 'params'>[]): {
  differ: { name: string; values: string[] }[]
  same: { name: string; value: string }[]
} {
  const rows = runs.map((r) => ({ ...r.params, datasetId: r.datasetId }) as Record<string, unknown>)
  const names = [...new Set(rows.flatMap((r) => Object.keys(r)))].sort()
  const differ: { name: string; values: string[] }[] = []
  const same: { name: string; value: string }[] = []
  for (const name of names) {
    const values = rows.map((r) => paramText(r[name]))
    if (values.every((v) => v === values[0])) same.push({ name, value: values[0] ?? '—' })
    else differ.push({ name, values })
  }
  return { differ, same }
}

/**
 * The warning the compare page shows when the runs did not all cluster the same dataset (their
 * inertias are then not comparable), or null when they did. `names` maps dataset id → name.
 */
export function datasetMismatchWarning(
  runs: readonly Pick<Run, 'id' | 'datasetId'>[],
  names: ReadonlyMap<string, string>,
): string | null {
  const byDataset = new Map<string, string[]>()
  for (const r of runs) byDataset.set(r.datasetId, [...(byDataset.get(r.datasetId) ?? []), r.id.slice(0, 8)])
  if (byDataset.size < 2) return null
  const groups = [...byDataset].map(
    ([id, ids]) => `${names.get(id) ?? `${id.slice(0, 8)} (deleted)`}: ${ids.join(', ')}`,
  )
  return `These runs used ${byDataset.size} different datasets, so their inertias do not compare — ${groups.join('; ')}.`
}
