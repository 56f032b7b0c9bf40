import { type JobStatus, jobStatuses, type Run } from '@codebook/shared'
import type { RunFilters } from '../api/client.ts'

/** The runs list's filter bar as typed (strings until turned into the server's filters). */
export interface RunFilterValues {
  q: string
  datasetId: string
  status: '' | JobStatus
  k: string
  tag: string
  /** `YYYY-MM-DD` (the browser's date input), inclusive; '' = open. */
  from: string
  to: string
}

export const emptyRunFilters: RunFilterValues = {
  q: '',
  datasetId: '',
  status: '',
  k: '',
  tag: '',
  from: '',
  to: '',
}

/** Orders of the runs list (the server pages newest first; the others sort what it answered). */
export const runSorts = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  'inertia-asc': 'Inertia, lowest first',
  'inertia-desc': 'Inertia, highest first',
  'k-asc': 'k, smallest first',
  'k-desc': 'k, largest first',
  name: 'Name',
} as const
export type RunSort = keyof typeof runSorts

/** The tags of a comma-separated field: trimmed, empty ones dropped, duplicates once. */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ]
}

/** Midnight of a `YYYY-MM-DD` day in the browser's time zone, as an ISO instant; undefined when not a date. */
function dayStart(day: string, plusDays = 0): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) return undefined
  const date = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/** The server's filters (`GET /api/runs?…`) of the bar's values; what is empty or malformed is left out. */
export function runFiltersOf(v: RunFilterValues): RunFilters {
  const k = /^\d+$/.test(v.k.trim()) && Number(v.k) > 0 ? Number(v.k) : undefined
  const status = (jobStatuses as readonly string[]).includes(v.status) ? (v.status as JobStatus) : undefined
  const from = dayStart(v.from)
  const to = dayStart(v.to, 1)
  const filters: RunFilters = {}
  if (v.q.trim() !== '') filters.q = v.q.trim()
  if (v.datasetId !== '') filters.datasetId = v.datasetId
  if (status !== undefined) filters.status = status
  if (k !== undefined) filters.k = k
  if (v.tag.trim() !== '') filters.tag = v.tag.trim()
  if (from !== undefined) filters.createdAfter = from
  if (to !== undefined) filters.createdBefore = to
  return filters
}

/** Whether any filter is set. */
export function hasRunFilters(v: RunFilterValues): boolean {
  return Object.keys(runFiltersOf(v)).length > 0
}

/** The runs in `sort` order (a copy; the server's newest-first order breaks ties). */
export function sortRuns(runs: readonly Run[], sort: RunSort): Run[] {
  const byNewest = [...runs]
  const rank = new Map(byNewest.map((r, i) => [r.id, i]))
  const tie = (a: Run, b: Run) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0)
  const inertia = (r: Run) => r.inertia ?? Number.NaN
  // Runs without an inertia (not started) go last in both inertia orders.
  const byInertia = (dir: 1 | -1) => (a: Run, b: Run) => {
    const x = inertia(a)
    const y = inertia(b)
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? tie(a, b) : 1) : -1
    return dir * (x - y) || tie(a, b)
  }
  switch (sort) {
    case 'newest':
      return byNewest
    case 'oldest':
      return byNewest.reverse()
    case 'inertia-asc':
      return byNewest.sort(byInertia(1))
    case 'inertia-desc':
      return byNewest.sort(byInertia(-1))
    case 'k-asc':
      return byNewest.sort((a, b) => a.params.k - b.params.k || tie(a, b))
    case 'k-desc':
      return byNewest.sort((a, b) => b.params.k - a.params.k || tie(a, b))
    case 'name':
      return byNewest.sort((a, b) => runTitle(a).localeCompare(runTitle(b)) || tie(a, b))
  }
}

/** A run's title: its name, else its short id. */
export function runTitle(run: Pick<Run, 'id' | 'name'>): string {
  return run.name ?? run.id.slice(0, 8)
}

/** Most runs the compare page overlays. */
export const MAX_COMPARED_RUNS = 8
