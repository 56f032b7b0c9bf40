import { randomUUID } from 'node:crypto'
import { copyFile, link, mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Dataset, Run, RunEvent, RunParams, Vocabulary } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import { hideServerPaths } from '../http/hide-paths.ts'
import { followChild, hasCode } from '../jobs/follow-child.ts'
import { createJobQueue, JobStopped } from '../jobs/job-queue.ts'
import { type RunDriverProcess, runDriverProcess } from './run-driver-process.ts'
import { createRunEventLog } from './run-event-log.ts'
import type { LaunchSettings } from './run-launch.ts'
import { datasetVectorsPath, type RunPaths, vocabularyPath } from './run-paths.ts'
import { type GetTopology, runPlacement } from './run-placement.ts'
import { FINAL_STATUSES, RESUMABLE_STATUSES, type RunEnding, type RunRepo } from './run-repo.ts'
import type { TrainedRun } from './run-training.ts'

/** Dependencies of {@link createRunService}. */
export interface RunServiceDeps {
  repo: RunRepo
  /** Looks a dataset up (throws 404 `DATASET_NOT_FOUND`). */
  getDataset: (id: string) => Promise<Dataset>
  paths: RunPaths
  /** Called once per stored event, in seq order per run (the plugin forwards it to socket.io). */
  emit: (runId: string, event: RunEvent) => void
  log: FastifyBaseLogger
  /** Runs executed at once; more wait queued. */
  maxConcurrentRuns: number
  /** Largest `workers` of one run (400 RUN_TOO_LARGE above). */
  maxWorkersPerRun: number
  /** Queued runs at most (429 QUEUE_FULL above). */
  maxQueuedRuns: number
  /** Workers of `join` and `slurm` runs: where they connect, how long a run waits for them. */
  workerLaunch: LaunchSettings
  /** A saved topology version; without it runs cannot name a topology. */
  getTopology?: GetTopology
}

/** The run service behind `/api/runs`: queue, execution on a worker pool, cancel, event log. */
export interface RunService {
  /** Checks the dataset (exists, ready, k ≤ n), stores the run `queued` and queues it. */
  create(params: RunParams): Promise<Run>
  /** @throws ApiError 404 `RUN_NOT_FOUND`. */
  get(id: string): Promise<Run>
  /** Newest first. */
  list(): Promise<Run[]>
  /**
   * Cancels a queued or running run: a running one is aborted, its worker processes shut down
   * (killed after 3 s), and resolves once it is `cancelled`.
   * @throws ApiError 409 `RUN_FINISHED` when the run had already ended.
   */
  cancel(id: string): Promise<Run>
  /**
   * Queues an `interrupted`, `cancelled` or `failed` run again from its checkpoint: it continues with
   * the checkpoint centroids for the remaining iterations, numbering them (and its events) on.
   * @throws ApiError 409 `RUN_NOT_RESUMABLE` when the run is in another state or has no checkpoint.
   */
  resume(id: string): Promise<Run>
  /** One vocabulary and its centroids file (k × d float32 .npy). @throws ApiError 404 `VOCABULARY_NOT_FOUND`. */
  vocabulary(id: string): Promise<{ vocabulary: Vocabulary; file: string }>
  /** Stored events with seq > after, in order, at most `limit`. @throws ApiError 404 `RUN_NOT_FOUND`. */
  events(id: string, after: number, limit?: number): Promise<RunEvent[]>
  /** Resolves with the record once the run is no longer queued or running. */
  settled(id: string): Promise<Run>
  /** PIDs of the worker processes a running run has alive now (empty otherwise). */
  workerPids(id: string): number[]
  /** PID of a running run's driver process (undefined otherwise). */
  driverPid(id: string): number | undefined
  /** Start-up: `running` runs left by the last server become `interrupted`; queued runs are queued again. */
  start(): Promise<void>
  /** Stops taking runs; running ones are aborted and marked `interrupted` (queued ones stay queued). */
  shutdown(): Promise<void>
}

/** `RUN_NOT_FOUND` (404). */
export function runNotFound(id: string): ApiError {
  return new ApiError(404, 'RUN_NOT_FOUND', `no run with id ${id}`)
}

/** Makes `to` a second name of `from` (a hard link: no copy), or a copy across file systems. */
async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await rm(to, { force: true })
    await link(from, to)
  } catch {
    await copyFile(from, to)
  }
}

/** The ending of a run stopped by cancel or shutdown. */
function stoppedEnding(stop: JobStopped): RunEnding {
  return stop.ending('RUN_CANCELLED', 'run')
}

/**
 * Creates the {@link RunService}: runs are jobs of the server's job queue (`maxConcurrentRuns`
 * at once, `maxQueuedRuns` waiting), each trained by its own driver process
 * (`run-driver-process.ts`); the server stores what the driver reports. Call `start()` once the app is ready.
 */
export function createRunService(deps: RunServiceDeps): RunService {
  const { repo, paths, log } = deps
  const events = createRunEventLog(repo, deps.emit, log)
  /** Driver processes of the runs executing now. */
  const drivers = new Map<string, RunDriverProcess>()
  const runs = createJobQueue(
    {
      name: 'run',
      concurrency: deps.maxConcurrentRuns,
      maxQueued: deps.maxQueuedRuns,
      queueFull: (waiting) =>
        new ApiError(
          429,
          'QUEUE_FULL',
          `${waiting} runs are already queued (CODEBOOK_MAX_QUEUED_RUNS); retry when some have started`,
        ),
      closedError: () => new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down'),
      run: execute,
      // Cancelled before its turn; one left waiting at shutdown stays queued for the next start.
      dropped: (id, stop) => (stop.why === 'cancelled' ? end(id, stoppedEnding(stop)) : undefined),
      async recover() {
        await Promise.all([
          mkdir(paths.runs, { recursive: true }),
          mkdir(paths.vocabularies, { recursive: true }),
        ])
        const interrupted = await repo.interruptRunning()
        for (const run of interrupted) await events.record(run.id, 'state', run)
        if (interrupted.length > 0)
          log.warn({ count: interrupted.length }, 'runs cut off by the last shutdown marked interrupted')
        return (await repo.listQueued()).map((run) => run.id)
      },
    },
    log,
  )

  async function getRun(id: string): Promise<Run> {
    const run = await repo.get(id)
    if (run === undefined) throw runNotFound(id)
    return run
  }

  async function end(id: string, ending: RunEnding): Promise<void> {
    const final = await repo.finish(id, ending)
    if (final) await events.record(id, 'state', final)
  }

  /** Executes run `id` to its end: trained, then its vocabulary saved; or failed, cancelled, interrupted. */
  async function execute(id: string, signal: AbortSignal): Promise<void> {
    const run = await repo.markRunning(id)
    if (run === undefined) return // cancelled while queued
    await events.record(id, 'state', run)
    try {
      const trained = await train(run, signal)
      signal.throwIfAborted()
      const vocabularyId = randomUUID()
      const path = vocabularyPath(paths, vocabularyId)
      await events.progressed(id, { phase: 'saving', fraction: 1, message: 'writing the vocabulary' })
      await linkOrCopy(trained.file, path)
      await repo.insertVocabulary({ id: vocabularyId, runId: id, k: run.params.k, d: trained.d, path })
      await events.say(
        id,
        'info',
        `Vocabulary ${vocabularyId} saved: ${run.params.k} × ${trained.d} float32.`,
      )
      await end(id, { status: 'succeeded', vocabularyId })
    } catch (err) {
      if (signal.aborted) {
        const stop = signal.reason instanceof JobStopped ? signal.reason : new JobStopped('cancelled')
        await events.say(
          id,
          'warn',
          stop.why === 'cancelled'
            ? 'Cancelled: worker processes shut down.'
            : 'Server stopping: run interrupted; resume continues from the last checkpoint.',
        )
        await end(id, stoppedEnding(stop))
        return
      }
      const code = hasCode(err) ? err.code : 'RUN_FAILED'
      const message = hideServerPaths(err instanceof Error ? err.message : String(err), paths.home)
      log.warn({ err, runId: id }, 'run failed')
      await events.say(id, 'error', `${code}: ${message}`)
      await end(id, { status: 'failed', error: { code, message } })
    }
  }

  /** Trains `run` in its own driver process, storing what it reports; resolves once that process has exited. */
  async function train(run: Run, signal: AbortSignal): Promise<TrainedRun> {
    const id = run.id
    const placed = await runPlacement(run.params, deps.getTopology)
    const runDir = join(paths.runs, id)
    await mkdir(runDir, { recursive: true })
    const launcher = run.params.launcher ?? 'local'
    const driver = runDriverProcess(
      {
        run,
        dataFile: datasetVectorsPath(paths, run.datasetId),
        runDir,
        launch: deps.workerLaunch,
        placement: placed && {
          version: placed.version,
          racks: placed.racks,
          hostTopology: placed.hostTopology,
        },
      },
      async (m) => {
        try {
          if (m.type === 'say') await events.say(id, m.level, hideServerPaths(m.message, paths.home))
          else if (m.type === 'progress') await events.progressed(id, m.data)
          else if (m.type === 'iteration') {
            await repo.setIteration(id, m.report.iteration, m.report.inertia, m.report.iteration)
            await events.record(id, 'iteration', m.report)
          } else {
            // Local runs keep their event sequence (their workers are this host's children); runs on other
            // hosts announce each change with a state event, so the run page shows the join command and jobs live.
            const updated = await repo.setLaunch(id, m.launch)
            if (updated && launcher !== 'local') await events.record(id, 'state', updated)
          }
        } catch (err) {
          log.error({ err, runId: id, message: m.type }, 'a run driver message could not be stored')
        }
      },
    )
    drivers.set(id, driver)
    let trained: TrainedRun | undefined
    try {
      await followChild(signal, {
        done: driver.done.then((t) => {
          trained = t
        }),
        cancel: () => driver.cancel(),
      })
      return trained!
    } finally {
      drivers.delete(id)
      // A driver that ended cleanly closed its workers; one killed or stopped may leave some, killed here
      // (only then: a clean driver's last PIDs may already belong to other processes).
      if (trained === undefined)
        for (const pid of driver.workerPids()) {
          try {
            process.kill(pid, 'SIGKILL')
          } catch {
            // Already gone.
          }
        }
    }
  }

  /** The params as stored: a named topology pinned to the version it had at launch. */
  async function withTopologyVersion(params: RunParams): Promise<RunParams> {
    const placed = await runPlacement(params, deps.getTopology)
    return placed === null ? params : { ...params, topologyVersion: placed.version }
  }

  return {
    async create(params) {
      runs.ensureRoom()
      if (params.workers > deps.maxWorkersPerRun)
        throw new ApiError(
          400,
          'RUN_TOO_LARGE',
          `workers = ${params.workers} exceeds this server's limit of ${deps.maxWorkersPerRun} (CODEBOOK_MAX_WORKERS_PER_RUN)`,
        )
      const dataset = await deps.getDataset(params.datasetId)
      if (dataset.status !== 'ready')
        throw new ApiError(
          409,
          'DATASET_NOT_READY',
          `dataset ${dataset.id} is ${dataset.status}; runs need a ready dataset`,
        )
      if (dataset.n !== null && params.k > dataset.n)
        throw new ApiError(
          400,
          'KMEANS_BAD_K',
          `k = ${params.k} exceeds the ${dataset.n} vectors of dataset ${dataset.id}`,
        )
      const run = await repo.insert(randomUUID(), await withTopologyVersion(params))
      await events.record(run.id, 'state', run)
      runs.submit(run.id)
      return run
    },

    get: getRun,

    list: () => repo.list(),

    async cancel(id) {
      const run = await getRun(id)
      if (await runs.cancel(id)) {
        await events.flushed(id)
        return getRun(id)
      }
      if (FINAL_STATUSES.includes(run.status))
        throw new ApiError(409, 'RUN_FINISHED', `run ${id} has already ended (${run.status})`)
      await end(id, stoppedEnding(new JobStopped('cancelled')))
      return getRun(id)
    },

    async resume(id) {
      runs.ensureRoom()
      const run = await getRun(id)
      const held = runs.state(id) !== undefined
      const requeued = held ? undefined : await repo.requeue(id)
      if (requeued === undefined)
        throw new ApiError(
          409,
          'RUN_NOT_RESUMABLE',
          RESUMABLE_STATUSES.includes(run.status) && !held
            ? `run ${id} has no checkpoint to resume from`
            : `run ${id} is ${run.status}; only ${RESUMABLE_STATUSES.join(', ')} runs with a checkpoint resume`,
        )
      await events.record(id, 'state', requeued)
      runs.submit(id)
      return requeued
    },

    async vocabulary(id) {
      const stored = await repo.getVocabulary(id)
      if (stored === undefined) throw new ApiError(404, 'VOCABULARY_NOT_FOUND', `no vocabulary with id ${id}`)
      const { path: _, ...vocabulary } = stored
      // The file is looked up in this home (the stored path is where it was written, maybe another mount).
      return { vocabulary, file: vocabularyPath(paths, id) }
    },

    async events(id, after, limit) {
      await getRun(id)
      return repo.eventsAfter(id, after, limit)
    },

    async settled(id) {
      await runs.settled(id)
      await events.flushed(id)
      return getRun(id)
    },

    workerPids: (id) => drivers.get(id)?.workerPids() ?? [],

    driverPid: (id) => drivers.get(id)?.child.pid,

    start: () => runs.start(),

    async shutdown() {
      await runs.close()
      await events.flushed()
    },
  }
}
