import { access, rename } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import type { SpawnWorker } from '@codebook/runtime/collectives'
import { CodebookError } from '@codebook/runtime/errors'
import { openNpy } from '@codebook/runtime/formats'
import {
  checkpointFile,
  initToCheckpoint,
  kmeansOptionsOf,
  runKmeans,
  threadsPerTaskOf,
} from '@codebook/runtime/kmeans'
import { rackOfHost } from '@codebook/runtime/topology'
import type { IterationReport, Run, Topology } from '@codebook/shared'
import { type LaunchSettings, startRunPool } from './run-launch.ts'
import type { RunReporter } from './run-reporter.ts'

/** Least time between two `iterating` progress events of a run. */
const PROGRESS_INTERVAL_MS = 1000

/** Where a run's workers sit, as the server resolved it from the run's topology. */
export interface TrainingPlacement {
  version: number
  /** `local` runs: the rack of each rank. */
  racks?: string[]
  /** `join` and `slurm` runs: the topology whose node names give a joined worker's rack. */
  hostTopology?: Topology
}

/** Everything the run's driver process needs besides the run. */
export interface TrainingJob {
  run: Run
  /** The dataset's vectors (`.npy`). */
  dataFile: string
  /** The run's own directory: checkpoints (`centroids-<i>.npy`) and Slurm output. */
  runDir: string
  launch: LaunchSettings
  placement: TrainingPlacement | null
}

/** The trained vocabulary: the last checkpoint. */
export interface TrainedRun {
  /** The checkpoint file holding the final centroids (k × d float32 `.npy`). */
  file: string
  iteration: number
  inertia: number | null
  d: number
}

/** What {@link trainRun} needs besides the job. */
export interface TrainingContext {
  report: RunReporter
  /** Aborts on cancel or shutdown: the pool is closed and its workers stopped. */
  signal: AbortSignal
  /** Starts the worker processes of a `local` run. */
  spawn: SpawnWorker
}

/**
 * Trains a run, in the run's driver process: opens its dataset, starts its worker pool, has
 * worker 0 write the init as checkpoint 0 (or resumes from the run's checkpoint) and runs the
 * SPMD iterations; every iteration's report goes to the server before the workers go on. The
 * centroids stay with the workers and on disk. The pool is closed on every path.
 */
export async function trainRun(job: TrainingJob, ctx: TrainingContext): Promise<TrainedRun> {
  const { run, runDir } = job
  const p = run.params
  const { signal, report } = ctx
  const { n, d } = await openData(job, report)
  // A resumed run starts from its checkpoint: iterations done so far are `offset`.
  const offset = run.checkpointIteration ?? 0
  if (offset > 0) {
    await report.say('info', `Resuming from the checkpoint of iteration ${offset}.`)
    await adoptLegacyCheckpoint(runDir, offset)
  }
  signal.throwIfAborted()
  const final = { file: checkpointFile(runDir, offset), iteration: offset, inertia: run.inertia, d }
  // Interrupted after its last iteration but before the vocabulary was written: nothing left to run.
  if (offset >= p.maxIterations) return final

  const placed = job.placement
  if (placed !== null)
    await report.say(
      'info',
      placed.racks
        ? `Topology ${p.topologyId} v${placed.version}: workers on racks ${[...new Set(placed.racks)].join(', ')}${p.mapping ? `, placed by ${p.mappingPlanner ?? 'a mapping'} (worker i on node ${p.mapping.join(', ')})` : ''}.`
        : `Topology ${p.topologyId} v${placed.version}: each worker on the rack of its host.`,
    )
  const launched = await startRunPool({
    run,
    runDir,
    report,
    signal,
    spawn: ctx.spawn,
    settings: job.launch,
    racks: placed?.racks,
    rackOfHost: placed?.hostTopology ? rackOfHost(placed.hostTopology) : undefined,
  })
  const { pool } = launched
  const launcher = p.launcher ?? 'local'
  const where =
    launcher === 'local' ? 'started' : `joined (${launcher}) on ${[...new Set(pool.hosts)].join(', ')}`
  await report.say(
    'info',
    `${p.workers} worker process${p.workers === 1 ? '' : 'es'} ${where} (${p.slots} slot${p.slots === 1 ? '' : 's'} each; broadcast ${p.broadcast}, ${p.reduction === 'regroup' ? `aggregation ${p.aggregation}` : `reduction ${p.reduction}`}, ${p.assignment === 'approximate' ? `approximate assignment (${p.approximateSearch})` : p.algorithm}, kernel ${p.kernel}).`,
  )
  const stopLostLog = pool.onWorkerLost((rank) => {
    if (!signal.aborted)
      void report.say('warn', `Worker ${rank} lost: replacing it and re-running from the last checkpoint.`)
  })
  let closing: Promise<void> | undefined
  const closePool = () => {
    closing ??= launched.close()
    return closing
  }
  const onAbort = () => void closePool()
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    signal.throwIfAborted()
    if (offset === 0) {
      // The init runs on worker 0 and lands in checkpoint 0: its O(k · sample · d) work and its k × d result stay off this process.
      const started = performance.now()
      await initToCheckpoint(
        pool,
        {
          file: job.dataFile,
          method: p.init,
          k: p.k,
          seed: p.seed,
          kernel: p.kernel,
          // The other workers wait meanwhile: the init's kernel gets every core, as in the CLI.
          threads: availableParallelism(),
        },
        runDir,
      )
      await report.say(
        'info',
        `${p.init} init of ${p.k} centroids (seed ${p.seed}) on worker 0 in ${Math.round(performance.now() - started)} ms.`,
      )
    }
    signal.throwIfAborted()
    const progress = progressReporter(p.maxIterations, offset, report)
    const result = await runKmeans(pool, {
      ...kmeansOptionsOf(p),
      data: { kind: 'npy', file: job.dataFile, n, d },
      checkpointDir: runDir,
      from: offset,
      // The checkpointed iteration's inertia, so the first resumed iteration can stop on tol as the
      // undisturbed run would (with tol 0 it cannot: every vector counts as reassigned once).
      previousInertia: offset > 0 ? (run.inertia ?? undefined) : undefined,
      threadsPerTask: threadsPerTaskOf(pool.hosts, p.workers, launcher === 'local'),
      now: () => performance.now(),
      readCentroids: false,
      onIteration: async (r: IterationReport) => {
        await report.iteration(r)
        await launched.noteWorkers()
        await progress(r.iteration)
      },
    })
    await report.say(
      'info',
      result.converged
        ? `Converged after ${result.iterations} iterations (${p.tol === 0 ? 'no vector changed cluster' : `relative inertia change ≤ ${p.tol}`}); inertia ${result.inertia.toPrecision(6)}.`
        : `Stopped at maxIterations = ${p.maxIterations}; inertia ${result.inertia.toPrecision(6)}.`,
    )
    return {
      file: checkpointFile(runDir, result.iterations),
      iteration: result.iterations,
      inertia: result.inertia,
      d,
    }
  } finally {
    stopLostLog()
    signal.removeEventListener('abort', onAbort)
    await closePool().catch(() => undefined)
  }
}

/** The run's dataset shape (`DATASET_DELETED` when its vectors are gone), announced in the log. */
async function openData(job: TrainingJob, report: RunReporter): Promise<{ n: number; d: number }> {
  const f = await openNpy(job.dataFile).catch((err: unknown) => {
    if (err instanceof CodebookError && err.code === 'FILE_NOT_FOUND')
      throw new CodebookError(
        'DATASET_DELETED',
        `dataset ${job.run.datasetId} was deleted; its vectors are gone`,
      )
    throw err
  })
  const { n, d } = f
  await f.close()
  await report.progressed({ phase: 'loading', fraction: 0, message: `dataset ${job.run.datasetId}` })
  await report.say(
    'info',
    `Dataset ${job.run.datasetId}: ${n.toLocaleString('en')} vectors × ${d} dimensions.`,
  )
  await report.progressed({ phase: 'init', fraction: 0 })
  return { n, d }
}

/** A run checkpointed by a server before per-iteration checkpoints (`checkpoint.npy`) resumes from it. */
async function adoptLegacyCheckpoint(runDir: string, iteration: number): Promise<void> {
  const current = checkpointFile(runDir, iteration)
  if (await exists(current)) return
  const legacy = join(runDir, 'checkpoint.npy')
  if (await exists(legacy)) await rename(legacy, current)
}

function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  )
}

/** `iterating` progress at most once a second (and at the last iteration), with an ETA from the mean iteration time. */
function progressReporter(maxIterations: number, offset: number, report: RunReporter) {
  const startedAt = performance.now()
  let lastAt = Number.NEGATIVE_INFINITY
  return async (iteration: number): Promise<void> => {
    const now = performance.now()
    if (now - lastAt < PROGRESS_INTERVAL_MS && iteration !== maxIterations) return
    lastAt = now
    const msPerIteration = (now - startedAt) / (iteration - offset)
    await report.progressed({
      phase: 'iterating',
      fraction: Math.min(1, iteration / maxIterations),
      etaSeconds: ((maxIterations - iteration) * msPerIteration) / 1000,
      message: `iteration ${iteration} of at most ${maxIterations}`,
    })
  }
}
