import {
  IterationReport,
  type JobEvent,
  Run,
  RunLogData,
  RunProgressData,
  type StageName,
  stageNames,
} from '@codebook/shared'

/**
 * An iteration report without its per-worker detail: what the columns need. Validating the 64
 * workers' records of every report costs ~10× more than the rest (measured: 0.5 vs 0.05 ms per
 * report), so they are validated only for the report the worker table shows.
 */
const IterationSummary = IterationReport.omit({ workers: true })

/**
 * For each stage, the rank of the slowest worker in an unvalidated `workers` array (−1: none);
 * entries that are not well-formed are ignored. Ties go to the lowest rank, like `criticalWorkers`.
 */
export function criticalRanks(workers: unknown): Record<StageName, number> {
  const out = {} as Record<StageName, number>
  const list = Array.isArray(workers) ? workers : []
  for (const s of stageNames) {
    let best = -1
    let bestMs = Number.NEGATIVE_INFINITY
    for (const w of list) {
      const rank = (w as { rank?: unknown })?.rank
      const ms = (w as { stages?: Record<string, { ms?: unknown } | undefined> })?.stages?.[s]?.ms
      if (typeof rank !== 'number' || typeof ms !== 'number') continue
      if (ms > bestMs || (ms === bestMs && rank < best)) {
        best = rank
        bestMs = ms
      }
    }
    out[s] = best
  }
  return out
}

/**
 * An append-only column of numbers in a typed array that doubles when full: appending is O(1)
 * amortised and reading a prefix (`view()`) copies nothing, so a chart can be fed 1,000 iterations
 * without rebuilding JavaScript arrays on every event.
 */
export class GrowableColumn {
  private buf: Float64Array
  length = 0

  constructor(capacity = 64) {
    this.buf = new Float64Array(capacity)
  }

  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2)
      next.set(this.buf)
      this.buf = next
    }
    this.buf[this.length++] = v
  }

  /** Value at `i` (undefined past the end). */
  at(i: number): number | undefined {
    return i >= 0 && i < this.length ? this.buf[i] : undefined
  }

  /** The filled prefix, without copying (valid until the next push that grows the buffer). */
  view(): Float64Array {
    return this.buf.subarray(0, this.length)
  }

  /** A plain array copy (what ECharts' bar and line series take). */
  toArray(): number[] {
    return Array.from(this.view())
  }
}

/** One `log` event as the page keeps it. */
export interface RunLogLine {
  seq: number
  level: RunLogData['level']
  message: string
}

function stageColumns(): Record<StageName, GrowableColumn> {
  const out = {} as Record<StageName, GrowableColumn>
  for (const s of stageNames) out[s] = new GrowableColumn()
  return out
}

/**
 * Everything the run page (and the compare page) derives from a run's event stream, kept
 * incrementally: per-iteration columns (stage ms and bytes, critical-path rank per stage, total ms,
 * inertia, distance fraction), the last report whole (the per-worker view), the last progress, the
 * log lines, the last `state` record. Older reports' per-worker detail is not kept: at 64 workers
 * a report is ~50 kB of objects, ×1,000 iterations.
 *
 * Mutable on purpose: {@link RunLive.apply} appends and bumps `version`; React holds the version.
 */
export class RunLive {
  /** Highest seq applied (0: none); sent as `lastSeq` when (re-)joining. */
  lastSeq = 0
  /** Bumped by every `apply` that changed something. */
  version = 0
  readonly iteration = new GrowableColumn()
  readonly totalMs = new GrowableColumn()
  readonly ms = stageColumns()
  readonly bytes = stageColumns()
  /** Rank of the slowest worker of each stage per iteration (−1: none reported). */
  readonly critical = stageColumns()
  readonly inertia = new GrowableColumn()
  /** Vectors that changed cluster per iteration. */
  readonly reassigned = new GrowableColumn()
  /** NaN where an iteration has no distance fraction. */
  readonly distanceFraction = new GrowableColumn()
  hasDistanceFraction = false
  /** Approximate assignment's recall per iteration; NaN where an iteration has none (exact). */
  readonly assignmentRecall = new GrowableColumn()
  hasAssignmentRecall = false
  /** Sum of `totalMs`, for the mean iteration time. */
  totalMsSum = 0
  /** The last iteration event's payload, validated whole only when {@link lastReport} is read. */
  private lastRaw: unknown = null
  private lastParsed: IterationReport | null = null
  progress: RunProgressData | null = null
  readonly logs: RunLogLine[] = []
  /** The run record of the last `state` event. */
  lastState: Run | null = null

  /** The last iteration's full report (per-worker detail), or null when none (or it does not parse). */
  get lastReport(): IterationReport | null {
    if (this.lastRaw !== null) {
      const parsed = IterationReport.safeParse(this.lastRaw)
      this.lastParsed = parsed.success ? parsed.data : null
      this.lastRaw = null
    }
    return this.lastParsed
  }

  /** Iterations held. */
  get count(): number {
    return this.iteration.length
  }

  /** Mean iteration wall time (sum of stage critical paths), ms; null before the first. */
  get meanIterationMs(): number | null {
    return this.count === 0 ? null : this.totalMsSum / this.count
  }

  /**
   * Applies events in seq order. Events at or below `lastSeq` are dropped (a backlog replayed
   * after a reconnect never duplicates anything); payloads that do not parse are skipped but still
   * advance `lastSeq` (the seq was delivered). Returns whether anything changed.
   */
  apply(events: readonly JobEvent[]): boolean {
    let fresh = events.filter((e) => e.seq > this.lastSeq)
    if (fresh.length === 0) return false
    // Socket batches arrive in order; sort only when they do not (a REST catch-up racing the socket).
    for (let i = 1; i < fresh.length; i++) {
      if (fresh[i]!.seq < fresh[i - 1]!.seq) {
        fresh = [...fresh].sort((a, b) => a.seq - b.seq)
        break
      }
    }
    for (const e of fresh) {
      if (e.seq <= this.lastSeq) continue // a duplicate within the batch
      this.lastSeq = e.seq
      if (e.type === 'iteration') {
        const parsed = IterationSummary.safeParse(e.data)
        if (parsed.success) this.addIteration(parsed.data, (e.data as { workers?: unknown }).workers, e.data)
      } else if (e.type === 'progress') {
        const parsed = RunProgressData.safeParse(e.data)
        if (parsed.success) this.progress = parsed.data
      } else if (e.type === 'log') {
        const parsed = RunLogData.safeParse(e.data)
        if (parsed.success) this.logs.push({ seq: e.seq, ...parsed.data })
      } else if (e.type === 'state') {
        const parsed = Run.safeParse(e.data)
        if (parsed.success) this.lastState = parsed.data
      }
    }
    this.version++
    return true
  }

  private addIteration(r: Omit<IterationReport, 'workers'>, workers: unknown, raw: unknown): void {
    const critical = criticalRanks(workers)
    let total = 0
    for (const s of stageNames) {
      const stage = r.stages[s]
      const ms = stage?.ms ?? 0
      total += ms
      this.ms[s].push(ms)
      this.bytes[s].push(stage?.bytes ?? 0)
      this.critical[s].push(critical[s])
    }
    this.iteration.push(r.iteration)
    this.totalMs.push(total)
    this.totalMsSum += total
    this.inertia.push(r.inertia)
    this.reassigned.push(r.reassigned)
    this.distanceFraction.push(r.distanceFraction ?? Number.NaN)
    if (r.distanceFraction !== undefined) this.hasDistanceFraction = true
    this.assignmentRecall.push(r.assignmentRecall ?? Number.NaN)
    if (r.assignmentRecall !== undefined) this.hasAssignmentRecall = true
    this.lastRaw = raw
  }
}

/** What the progress bar shows: from the last `progress` event, else iterations done ÷ max. */
export interface ProgressView {
  phase: RunProgressData['phase'] | null
  fraction: number
  /** Seconds left, null when unknown. */
  etaSeconds: number | null
  message: string | null
}

/**
 * The progress of an active run: a `progress` event wins (it knows the loading / init / saving
 * phases and the server's ETA); without one, iterations done ÷ maxIterations and an ETA at the mean
 * iteration time (an upper bound: the run may stop earlier on tol).
 */
export function progressView(live: RunLive, iterationsDone: number, maxIterations: number): ProgressView {
  const p = live.progress
  if (p) {
    return {
      phase: p.phase,
      fraction: p.fraction,
      etaSeconds: p.etaSeconds ?? null,
      message: p.message ?? null,
    }
  }
  const mean = live.meanIterationMs
  return {
    phase: null,
    fraction: maxIterations > 0 ? iterationsDone / maxIterations : 0,
    etaSeconds: mean === null ? null : (Math.max(0, maxIterations - iterationsDone) * mean) / 1000,
    message: null,
  }
}
