import { mkdir } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { CodebookError, openNpy, runKmeans, type SpawnWorker, writeNpy } from '@codebook/runtime'
import type { IterationReport, Run } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { RunEventLog } from './run-event-log.ts'
import { initOnRunWorker } from './run-init.ts'
import { type LaunchSettings, startRunPool } from './run-launch.ts'
import { checkpointPath, datasetVectorsPath, type RunPaths } from './run-paths.ts'
import { type GetTopology, runPlacement } from './run-placement.ts'
import type { RunRepo } from './run-repo.ts'

/** Least time between two `iterating` progress events of a run. */
const PROGRESS_INTERVAL_MS = 1000

/** What {@link trainRun} needs besides the run. */
export interface TrainingContext {
  paths: RunPaths
  repo: Pick<RunRepo, 'setIteration' | 'setLaunch'>
  events: RunEventLog
  /** Aborts on cancel or shutdown: the pool is closed and its workers stopped. */
  signal: AbortSignal
  /** Starts worker processes of a `local` run (tracked by the caller). */
  spawn: SpawnWorker
  /** Settings of the `join` and `slurm` launchers. */
  launch: LaunchSettings
  getTopology?: GetTopology
  log: FastifyBaseLogger
}

/** The learned vocabulary. */
export interface TrainedCentroids {
  centroids: Float32Array
  k: number
  d: number
}

/** Where a run starts: its data, and for a resumed run the checkpoint and the iterations done. */
interface RunStart {
  file: string
  n: number
  d: number
  /** Iterations done before this execution (0 unless resumed). */
  offset: number
  fromCheckpoint: Float32Array | null
}

/**
 * Trains run `run`: opens its dataset, starts its worker pool, computes the init on worker 0 (or
 * resumes from the checkpoint) and runs K-means, checkpointing and recording every iteration.
 * The pool is closed on every path.
 */
export async function trainRun(run: Run, ctx: TrainingContext): Promise<TrainedCentroids> {
  const p = run.params
  const { signal, events } = ctx
  const start = await openRunStart(run, ctx)
  const { file, n, d, offset, fromCheckpoint } = start
  signal.throwIfAborted()
  const remaining = p.maxIterations - offset
  // Interrupted after its last iteration but before the vocabulary was written: nothing left to run.
  if (remaining <= 0 && fromCheckpoint !== null) return { centroids: fromCheckpoint, k: p.k, d }
  await mkdir(join(ctx.paths.runs, run.id), { recursive: true })

  const placed = await runPlacement(p, ctx.getTopology)
  if (placed !== null)
    await events.say(
      run.id,
      'info',
      placed.racks
        ? `Topology ${p.topologyId} v${placed.version}: workers on racks ${[...new Set(placed.racks)].join(', ')}${p.mapping ? `, placed by ${p.mappingPlanner ?? 'a mapping'} (worker i on node ${p.mapping.join(', ')})` : ''}.`
        : `Topology ${p.topologyId} v${placed.version}: each worker on the rack of its host.`,
    )
  const launched = await startRunPool({
    run,
    runDir: join(ctx.paths.runs, run.id),
    repo: ctx.repo,
    events,
    signal,
    spawn: ctx.spawn,
    settings: ctx.launch,
    racks: placed?.racks,
    rackOfHost: placed?.rackOfHost,
  })
  const { pool } = launched
  const launcher = p.launcher ?? 'local'
  const where =
    launcher === 'local' ? 'started' : `joined (${launcher}) on ${[...new Set(pool.hosts)].join(', ')}`
  await events.say(
    run.id,
    'info',
    `${p.workers} worker process${p.workers === 1 ? '' : 'es'} ${where} (${p.slots} slot${p.slots === 1 ? '' : 's'} each; broadcast ${p.broadcast}, ${p.reduction === 'regroup' ? `aggregation ${p.aggregation}` : `reduction ${p.reduction}`}, ${p.assignment === 'approximate' ? `approximate assignment (${p.approximateSearch})` : p.algorithm}, kernel ${p.kernel}).`,
  )
  const stopLostLog = pool.onWorkerLost((rank) => {
    if (!signal.aborted)
      void events.say(
        run.id,
        'warn',
        `Worker ${rank} lost: replacing it and re-running the iteration from the checkpoint.`,
      )
  })
  let closing: Promise<void> | undefined
  const closePool = () => {
    closing ??= launched.close()
    return closing
  }
  const onAbort = () => void closePool()
  signal.addEventListener('abort', onAbort, { once: true })
  const recorder = iterationRecorder(run, ctx, start, launched.noteWorkers)
  try {
    signal.throwIfAborted()
    // The init runs on worker 0 (its O(k · sample · d) work would otherwise block this event loop).
    const init =
      fromCheckpoint ?? (await initOnRunWorker(pool, file, p, (line) => events.say(run.id, 'info', line)))
    signal.throwIfAborted()
    const result = await runKmeans(pool, {
      data: { kind: 'npy', file, n, d },
      init,
      maxIterations: remaining,
      tol: p.tol,
      // The checkpointed iteration's inertia, so the first resumed iteration can stop on tol as the
      // undisturbed run would (with tol 0 it cannot: every vector counts as reassigned once).
      previousInertia: offset > 0 ? (run.inertia ?? undefined) : undefined,
      slots: p.slots,
      broadcast: p.broadcast,
      chainOrder: p.chainOrder,
      aggregation: p.aggregation,
      reduction: p.reduction,
      // Empty-cluster splits draw from createRng(seed + iteration): shifting the seed by the offset
      // makes a resumed run draw exactly what the undisturbed run would have.
      seed: p.seed + offset,
      kernel: p.kernel,
      algorithm: p.algorithm,
      assignment: p.assignment,
      ...(p.assignment === 'approximate' ? { hnsw: { search: p.approximateSearch } } : {}),
      partials: p.partials,
      // Workers sharing a host split its cores (as `codebook kmeans`); a worker alone on its host uses all of that host's.
      threadsPerTask:
        new Set(pool.hosts).size === p.workers && launcher !== 'local'
          ? undefined
          : Math.max(1, Math.floor(availableParallelism() / p.workers)),
      now: () => performance.now(),
      onIteration: recorder.onIteration,
    })
    await recorder.settled()
    const iterations = result.iterations + offset
    await events.say(
      run.id,
      'info',
      iterations < p.maxIterations
        ? `Converged after ${iterations} iterations (relative inertia change ≤ ${p.tol}); inertia ${result.inertia.toPrecision(6)}.`
        : `Stopped at maxIterations = ${p.maxIterations}; inertia ${result.inertia.toPrecision(6)}.`,
    )
    await writeNpy(checkpointPath(ctx.paths, run.id), result.centroids, p.k, d)
    await ctx.repo.setIteration(run.id, iterations, result.inertia, iterations)
    return { centroids: result.centroids, k: p.k, d }
  } finally {
    stopLostLog()
    signal.removeEventListener('abort', onAbort)
    await recorder.settled().catch(() => undefined)
    await closePool().catch((err) => ctx.log.warn({ err, runId: run.id }, 'worker pool close failed'))
  }
}

/** Opens the run's dataset (`DATASET_DELETED` when it is gone) and, when resuming, its checkpoint. */
async function openRunStart(run: Run, ctx: TrainingContext): Promise<RunStart> {
  const file = datasetVectorsPath(ctx.paths, run.datasetId)
  const f = await openNpy(file).catch((err: unknown) => {
    if (err instanceof CodebookError && err.code === 'FILE_NOT_FOUND')
      throw new CodebookError('DATASET_DELETED', `dataset ${run.datasetId} was deleted; its vectors are gone`)
    throw err
  })
  const { n, d } = f
  // A resumed run starts from its checkpoint: iterations done so far are `offset`.
  const offset = run.checkpointIteration ?? 0
  try {
    await ctx.events.progressed(run.id, {
      phase: 'loading',
      fraction: 0,
      message: `dataset ${run.datasetId}`,
    })
    await ctx.events.say(
      run.id,
      'info',
      `Dataset ${run.datasetId}: ${n.toLocaleString('en')} vectors × ${d} dimensions.`,
    )
    await ctx.events.progressed(run.id, { phase: 'init', fraction: 0 })
    if (offset === 0) return { file, n, d, offset, fromCheckpoint: null }
    await ctx.events.say(run.id, 'info', `Resuming from the checkpoint of iteration ${offset}.`)
    return { file, n, d, offset, fromCheckpoint: await readCheckpoint(run, d, ctx.paths) }
  } finally {
    await f.close()
  }
}

/** The centroids of a run's checkpoint (k × d, as the dataset). */
async function readCheckpoint(run: Run, d: number, paths: RunPaths): Promise<Float32Array> {
  const c = await openNpy(checkpointPath(paths, run.id))
  try {
    if (c.n !== run.params.k || c.d !== d)
      throw new CodebookError(
        'RUN_CHECKPOINT_MISMATCH',
        `checkpoint of run ${run.id} is ${c.n} × ${c.d}, expected ${run.params.k} × ${d}`,
      )
    return Float32Array.from(await c.readRows(0, c.n))
  } finally {
    await c.close()
  }
}

/**
 * Records each iteration in order: its centroids checkpointed (atomically) before its event, so a
 * run's last iteration event always has its checkpoint on disk; progress at most once a second.
 */
function iterationRecorder(
  run: Run,
  ctx: TrainingContext,
  start: RunStart,
  noteWorkers: () => Promise<void>,
) {
  const p = run.params
  const { offset, d } = start
  let chain: Promise<void> = Promise.resolve()
  const startedAt = performance.now()
  let lastProgressAt = Number.NEGATIVE_INFINITY
  return {
    onIteration(local: IterationReport, centroids: Float32Array): void {
      const copy = Float32Array.from(centroids)
      // The runtime numbers a resumed run's iterations from 1: continue the run's own numbering.
      const report = { ...local, iteration: local.iteration + offset }
      chain = chain.then(async () => {
        await writeNpy(checkpointPath(ctx.paths, run.id), copy, p.k, d)
        await ctx.repo.setIteration(run.id, report.iteration, report.inertia, report.iteration)
        await ctx.events.record(run.id, 'iteration', report)
        await noteWorkers()
        const now = performance.now()
        if (now - lastProgressAt < PROGRESS_INTERVAL_MS && report.iteration !== p.maxIterations) return
        lastProgressAt = now
        const msPerIteration = (now - startedAt) / (report.iteration - offset)
        await ctx.events.progressed(run.id, {
          phase: 'iterating',
          fraction: Math.min(1, report.iteration / p.maxIterations),
          etaSeconds: ((p.maxIterations - report.iteration) * msPerIteration) / 1000,
          message: `iteration ${report.iteration} of at most ${p.maxIterations}`,
        })
      })
    },
    /** Resolves once every iteration so far is recorded. */
    settled: () => chain,
  }
}
