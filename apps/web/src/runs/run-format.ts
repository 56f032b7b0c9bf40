import type { Run } from '@codebook/shared'

/**
 * Inertia exactly: JavaScript's shortest form that reads back as the same float64 ("20232" for
 * 20232.0, "20232.125" for 20232.125; an exponent only past 1e21). A rounded "20230" looked exact
 * and was not. '—' when null.
 */
export function formatInertia(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—'
  return String(v)
}

/** Seconds from start to finish (to `now` while running); null before it started. */
export function runDurationSeconds(run: Run, now: number): number | null {
  if (!run.startedAt) return null
  const start = Date.parse(run.startedAt)
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, (end - start) / 1000) : null
}
