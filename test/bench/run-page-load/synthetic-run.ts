import { randomUUID } from 'node:crypto'
import { createRng } from '@codebook/runtime/kmeans'
import {
  CreateRun,
  IterationReport,
  type JobEvent,
  type Run,
  type RunEventType,
  type RunLogData,
  type RunParams,
  type RunProgressData,
  stageNames,
} from '@codebook/shared'
import type { FastifyInstance } from 'fastify'

/** The part of the server's run repository the benches use (apps/server/src/runs/run-repo.ts). */
export interface RunRepo {
  insert(id: string, params: RunParams): Promise<Run>
  markRunning(id: string): Promise<Run | undefined>
}

/** The server's job feed module (apps/server/src/jobs/job-feed.ts): a feed that stores without publishing. */
interface JobFeedModule {
  createJobFeed(
    db: unknown,
    publish: (...args: unknown[]) => void,
    log: FastifyInstance['log'],
  ): FastifyInstance['jobFeed']
}

/**
 * Imports a module of the server's source by path. No exported hook inserts a run record without
 * queueing it, so the benches use the server's own modules; the specifier is computed so the test package's typecheck does not pull the server's
 * source in beside its built declarations (two `declare module 'fastify'` would clash). See README.md.
 */
export async function importServerSource<T>(path: string): Promise<T> {
  const url = new URL(`../../../apps/server/src/${path}`, import.meta.url).href
  return (await import(url)) as T
}

/**
 * A schema-valid synthetic iteration report: `workers` workers in racks of 8, per-stage times and
 * bytes drawn from a seeded generator, inertia falling geometrically. Parsed with the shared schema
 * before it is returned, so a bench never streams something the page would reject.
 */
export function syntheticIteration(iteration: number, workers: number, seed: number): IterationReport {
  const rng = createRng(seed * 1_000_003 + iteration)
  const k = 1024
  const d = 512
  const centroidBytes = k * d * 4
  const workerReports: IterationReport['workers'] = []
  const stageMs = Object.fromEntries(stageNames.map((s) => [s, 0])) as Record<string, number>
  const stageBytes = Object.fromEntries(stageNames.map((s) => [s, 0])) as Record<string, number>
  const stageIntra = Object.fromEntries(stageNames.map((s) => [s, 0])) as Record<string, number>
  let inertiaSum = 0
  const base = 1e6 * (0.2 + 0.8 * 0.97 ** iteration)
  for (let rank = 0; rank < workers; rank++) {
    const rack = `r${Math.floor(rank / 8)}`
    const stages = {} as IterationReport['workers'][number]['stages']
    for (const s of stageNames) {
      const ms = (s === 'map' ? 40 : s === 'broadcast' ? 12 : 4) * (0.6 + 0.8 * rng.next())
      const sent =
        s === 'broadcast' ? (rank === workers - 1 ? 0 : centroidBytes) : Math.floor(rng.next() * 2e5)
      const intra = rank % 8 === 7 ? 0 : sent
      stages[s] = {
        ms,
        bytesSent: sent,
        bytesReceived: s === 'broadcast' && rank > 0 ? centroidBytes : Math.floor(rng.next() * 2e5),
        intraRackBytes: intra,
        crossRackBytes: sent - intra,
      }
      stageMs[s] = Math.max(stageMs[s] ?? 0, ms)
      stageBytes[s] = (stageBytes[s] ?? 0) + sent
      stageIntra[s] = (stageIntra[s] ?? 0) + intra
    }
    const inertia = (base / workers) * (0.9 + 0.2 * rng.next())
    inertiaSum += inertia
    workerReports.push({
      rank,
      rack,
      points: 15_625,
      stages,
      inertia,
      reassigned: Math.floor(15_625 * 0.5 ** iteration),
      distancesEvaluated: 15_625 * k,
      maxRssBytes: 200e6,
    })
  }
  const stages = {} as IterationReport['stages']
  for (const s of stageNames) {
    const bytes = stageBytes[s] ?? 0
    const intra = stageIntra[s] ?? 0
    stages[s] = { ms: stageMs[s] ?? 0, bytes, intraRackBytes: intra, crossRackBytes: bytes - intra }
  }
  return IterationReport.parse({
    iteration,
    stages,
    inertia: inertiaSum,
    reassigned: workerReports.reduce((t, w) => t + w.reassigned, 0),
    emptyClustersSplit: 0,
    encoding: { sparseMessages: workers, denseMessages: workers },
    restarts: 0,
    workers: workerReports,
    distanceFraction: 1,
  })
}

/** A run inserted straight into the database as `running`, and a way to append and publish its events. */
export interface SyntheticRun {
  run: Run
  repo: RunRepo
  /** Stores an event (next seq) and publishes it to the run's sockets (`app.jobFeed`). */
  append(type: RunEventType, data: unknown): Promise<JobEvent>
  /**
   * Publishes an event now, with the seq it will get, and stores it in the background
   * (in order): the live pace does not wait for the database. `settled()` awaits the stores and
   * checks each got the seq that was sent.
   */
  stream(type: RunEventType, data: unknown): void
  settled(): Promise<void>
}

/**
 * Inserts a run record (queued → running, no worker behind it) for `datasetId` with `params`
 * overrides, stores its `state` event, and returns an appender. Events go out through the server's
 * own job feed and publisher (`app.jobFeed`, `app.jobEvents`), as the run service's do; `stream` publishes before it stores, so
 * call it only once the clients that matter have joined (see README.md).
 */
export async function insertSyntheticRun(
  app: FastifyInstance,
  params: Partial<RunParams> = {},
): Promise<SyntheticRun> {
  const { createRunRepo } = await importServerSource<{ createRunRepo(db: unknown): RunRepo }>(
    'runs/run-repo.ts',
  )
  const repo = createRunRepo(app.db)
  const { createJobFeed } = await importServerSource<JobFeedModule>('jobs/job-feed.ts')
  const quiet = createJobFeed(app.db, () => undefined, app.log)
  const id = randomUUID()
  await repo.insert(
    id,
    CreateRun.parse({ datasetId: 'synthetic', k: 1024, maxIterations: 1000, workers: 64, tol: 0, ...params }),
  )
  const run = await repo.markRunning(id)
  if (!run) throw new Error(`synthetic run ${id} could not be marked running`)
  const append = async (type: RunEventType, data: unknown) => {
    const event = await app.jobFeed.record('run', id, type, data)
    if (!event) throw new Error(`event ${type} of run ${id} could not be stored`)
    return event
  }
  await append('state', run)
  let nextSeq = 2
  let chain: Promise<void> = Promise.resolve()
  const stream = (type: RunEventType, data: unknown) => {
    const seq = nextSeq++
    app.jobEvents.publish('run', id, { seq, type, data })
    chain = chain.then(async () => {
      const stored = await quiet.record('run', id, type, data)
      if (stored?.seq !== seq) throw new Error(`event stored as seq ${stored?.seq}, sent as ${seq}`)
    })
  }
  return { run, repo, append, stream, settled: () => chain }
}

/** A `progress` event's data during iterations. */
export function iteratingProgress(iteration: number, maxIterations: number, meanMs: number): RunProgressData {
  return {
    phase: 'iterating',
    fraction: iteration / maxIterations,
    etaSeconds: ((maxIterations - iteration) * meanMs) / 1000,
  }
}

/** A `log` event's data. */
export function logLine(level: RunLogData['level'], message: string): RunLogData {
  return { level, message }
}
