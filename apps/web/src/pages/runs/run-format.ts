import type { Run } from '@codebook/shared'

/** Inertia with 4 significant digits in scientific form when large: 1.234e+6; '—' when null. */
export function formatInertia(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—'
  if (v !== 0 && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3)) return v.toExponential(3)
  return String(Number(v.toPrecision(4)))
}

/** Seconds from start to finish (to `now` while running); null before it started. */
export function runDurationSeconds(run: Run, now: number): number | null {
  if (!run.startedAt) return null
  const start = Date.parse(run.startedAt)
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, (end - start) / 1000) : null
}
