import { IterationReport, type RunEvent, type StageName, stageNames } from '@codebook/shared'

/** What the run page holds of a run's event stream: the last seq seen and the iteration reports. */
export interface RunEventState {
  /** Highest seq applied (0: none); sent as `lastSeq` when (re-)joining. */
  lastSeq: number
  /** Iteration reports in seq order, one per `iteration` event. */
  iterations: IterationReport[]
}

/** The state before any event. */
export const emptyRunEventState: RunEventState = { lastSeq: 0, iterations: [] }

/**
 * Applies events to the state in seq order. Events at or below `lastSeq` are dropped, so a
 * backlog replayed after a reconnect (or the REST catch-up racing the socket) never duplicates a
 * report. Returns the same object when nothing changed (cheap for React). Iteration reports that
 * do not parse are skipped but still advance `lastSeq`: the seq was delivered.
 */
export function mergeRunEvents(state: RunEventState, events: readonly RunEvent[]): RunEventState {
  const fresh = events.filter((e) => e.seq > state.lastSeq).sort((a, b) => a.seq - b.seq)
  if (fresh.length === 0) return state
  let lastSeq = state.lastSeq
  const added: IterationReport[] = []
  for (const e of fresh) {
    if (e.seq <= lastSeq) continue // a duplicate within the batch
    lastSeq = e.seq
    if (e.type !== 'iteration') continue
    const parsed = IterationReport.safeParse(e.data)
    if (parsed.success) added.push(parsed.data)
  }
  return { lastSeq, iterations: added.length === 0 ? state.iterations : [...state.iterations, ...added] }
}

/** Wall-clock time of one iteration: the sum of its stages' critical-path times, ms. */
export function iterationMs(report: IterationReport): number {
  let ms = 0
  for (const s of stageNames) ms += report.stages[s]?.ms ?? 0
  return ms
}

/**
 * Seconds left at the mean iteration time so far: (maxIterations − done) × mean. Null before the
 * first iteration. An upper bound: the run may stop earlier on tol.
 */
export function etaSeconds(reports: readonly IterationReport[], maxIterations: number): number | null {
  if (reports.length === 0) return null
  let total = 0
  for (const r of reports) total += iterationMs(r)
  const done = Math.max(...reports.map((r) => r.iteration))
  return (Math.max(0, maxIterations - done) * (total / reports.length)) / 1000
}

/**
 * For each stage, the rank of the worker that took longest (the critical path of the stage);
 * null for a stage no worker reports. Ties go to the lowest rank.
 */
export function criticalWorkers(report: IterationReport): Record<StageName, number | null> {
  const out = {} as Record<StageName, number | null>
  for (const s of stageNames) {
    let best: number | null = null
    let bestMs = Number.NEGATIVE_INFINITY
    for (const w of report.workers) {
      const ms = w.stages[s]?.ms
      if (ms === undefined) continue
      if (ms > bestMs || (ms === bestMs && best !== null && w.rank < best)) {
        best = w.rank
        bestMs = ms
      }
    }
    out[s] = best
  }
  return out
}

/** Per-stage columns over iterations, built once per change for the charts. */
export interface StageSeries {
  iterations: number[]
  ms: Record<StageName, number[]>
  bytes: Record<StageName, number[]>
  inertia: number[]
  /** Null where an iteration has no distance fraction. */
  distanceFraction: (number | null)[]
  hasDistanceFraction: boolean
}

/** Columns of the reports, for stacked bars and lines. */
export function toStageSeries(reports: readonly IterationReport[]): StageSeries {
  const ms = {} as Record<StageName, number[]>
  const bytes = {} as Record<StageName, number[]>
  for (const s of stageNames) {
    ms[s] = new Array<number>(reports.length)
    bytes[s] = new Array<number>(reports.length)
  }
  const iterations = new Array<number>(reports.length)
  const inertia = new Array<number>(reports.length)
  const distanceFraction = new Array<number | null>(reports.length)
  let hasDistanceFraction = false
  reports.forEach((r, i) => {
    iterations[i] = r.iteration
    inertia[i] = r.inertia
    distanceFraction[i] = r.distanceFraction ?? null
    if (r.distanceFraction !== undefined) hasDistanceFraction = true
    for (const s of stageNames) {
      ms[s][i] = r.stages[s]?.ms ?? 0
      bytes[s][i] = r.stages[s]?.bytes ?? 0
    }
  })
  return { iterations, ms, bytes, inertia, distanceFraction, hasDistanceFraction }
}
