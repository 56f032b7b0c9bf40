import { randomUUID } from 'node:crypto'
import { copyFile, link, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import {
  type Dataset,
  type IterationRow,
  isFinalJobStatus,
  type JobEvent,
  type Run,
  type RunChanged,
  type RunListQuery,
  type RunParams,
  type UpdateRun,
  type Vocabulary,
} from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { ListPage } from '../db/list-page.ts'
import type { VocabularyOrigin } from '../db/schema.ts'
import { ApiError } from '../http/api-error.ts'
import { hideServerPaths } from '../http/hide-paths.ts'
import type { JobFeed } from '../jobs/job-feed.ts'
import { createStoredJobs, type JobChild, type JobContext } from '../jobs/stored-jobs.ts'
import { type RunDriverProcess, runDriverProcess } from './run-driver-process.ts'
import type { LaunchSettings } from './run-launch.ts'
import { datasetVectorsPath, type RunPaths, vocabularyPath } from './run-paths.ts'
import { type GetTopology, runPlacement } from './run-placement.ts'
import { RESUMABLE_STATUSES, type RunRepo } from './run-repo.ts'
import type { TrainedRun } from './run-training.ts'

/** Dependencies of {@link createRunService}. */
export interface RunServiceDeps {
  repo: RunRepo
  /** Looks a dataset up (throws 404 `DATASET_NOT_FOUND`). */
  getDataset: (id: string) => Promise<Dataset>
  paths: RunPaths
  /** The job feed the run's events are stored in and sent from. */
  feed: JobFeed
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
  /** Deletes a vocabulary with its files (`DELETE /api/runs/:id?vocabulary=delete`). */
  removeVocabulary?: (id: string) => Promise<void>
  /** Tells every client that a run was relabelled or deleted (state changes go out with the feed's `state` events). */
  changed?: (change: RunChanged) => void
}

/** The run service behind `/api/runs`: queue, execution on a worker pool, cancel, event log. */
export interface RunService {
  /** Checks the dataset (exists, ready, k ≤ n), stores the run `queued` and queues it. */
  create(params: RunParams): Promise<Run>
  /** @throws ApiError 404 `RUN_NOT_FOUND`. */
  get(id: string): Promise<Run>
  /** One page of the runs matching the query's filters, newest first. */
  list(query: RunListQuery): Promise<ListPage<Run>>
  /** Sets a run's name, notes or tags. @throws ApiError 404 `RUN_NOT_FOUND`. */
  update(id: string, labels: UpdateRun): Promise<Run>
  /**
   * Deletes a run: a queued or running one is cancelled first (its workers gone), then its record,
   * events and folder (checkpoints) go; its vocabulary too unless `keep`, in which case the
   * vocabulary remembers the run's dataset, params and inertia (`origin`).
   * @throws ApiError 404 `RUN_NOT_FOUND`.
   */
  remove(id: string, vocabulary: 'keep' | 'delete'): Promise<void>
  /** One row per iteration. @throws ApiError 404 `RUN_NOT_FOUND`. */
  iterations(id: string): Promise<IterationRow[]>
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
  /**
   * One vocabulary, its centroids file (k × d float32 .npy) and, when its run was deleted, what it
   * kept of it. @throws ApiError 404 `VOCABULARY_NOT_FOUND`.
   */
  vocabulary(id: string): Promise<{ vocabulary: Vocabulary; file: string; origin: VocabularyOrigin | null }>
  /** Stored events with seq > after, in order, at most `limit`. @throws ApiError 404 `RUN_NOT_FOUND`. */
  events(id: string, after: number, limit?: number): Promise<JobEvent[]>
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

/**
 * Creates the {@link RunService}: runs are stored jobs (`jobs/stored-jobs.ts`: `maxConcurrentRuns`
 * at once, `maxQueuedRuns` waiting), each trained by its own driver process
 * (`run-driver-process.ts`); the server stores what the driver reports. Call `start()` once the app is ready.
 */
export function createRunService(deps: RunServiceDeps): RunService {
  const { repo, paths, log } = deps
  /** Driver processes of the runs executing now. */
  const drivers = new Map<string, RunDriverProcess>()
  const say = (record: JobContext['record'], level: 'info' | 'warn' | 'error', message: string) =>
    record('log', { level, message })

  const jobs = createStoredJobs<Run, Run>(
    {
      kind: 'run',
      concurrency: deps.maxConcurrentRuns,
      maxQueued: deps.maxQueuedRuns,
      queueFullMessage: (waiting) =>
        `${waiting} runs are already queued (CODEBOOK_MAX_QUEUED_RUNS); retry when some have started`,
      store: repo,
      recordOf: (run) => run,
      launch,
      async ending(_id, ending, record) {
        if (ending.status === 'cancelled') await say(record, 'warn', 'Cancelled: worker processes shut down.')
        else if (ending.status === 'interrupted')
          await say(
            record,
            'warn',
            'Server stopping: run interrupted; resume continues from the last checkpoint.',
          )
        else if (ending.error) await say(record, 'error', `${ending.error.code}: ${ending.error.message}`)
      },
      resume: {
        from: RESUMABLE_STATUSES,
        requeue: (id) => repo.requeue(id),
        whyNot: (run) => `run ${run.id} has no checkpoint to resume from`,
      },
    },
    { feed: deps.feed, log, home: paths.home },
  )

  /**
   * Starts run `run`'s driver process, storing what it reports in order; the child is done once
   * the driver has exited and the vocabulary is saved.
   */
  async function launch(run: Run, context: JobContext): Promise<JobChild> {
    const id = run.id
    const { inOrder, record, signal } = context
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
      (m) =>
        inOrder(async () => {
          if (m.type === 'say') await say(record, m.level, hideServerPaths(m.message, paths.home))
          else if (m.type === 'progress') await record('progress', m.data)
          else if (m.type === 'iteration') {
            await repo.setIteration(id, m.report.iteration, m.report.inertia, m.report.iteration)
            await record('iteration', m.report)
          } else {
            // Local runs keep their event sequence (their workers are this host's children); runs on other
            // hosts announce each change with a state event, so the run page shows the join command and jobs live.
            const updated = await repo.setLaunch(id, m.launch)
            if (updated && launcher !== 'local') await record('state', updated)
          }
        }),
    )
    drivers.set(id, driver)
    const done = driver.done.then(
      async (trained) => {
        drivers.delete(id)
        signal.throwIfAborted()
        await saveVocabulary(run, trained, context)
      },
      (err: unknown) => {
        drivers.delete(id)
        // A driver killed or stopped may leave workers, killed here (only then: a clean driver's last
        // PIDs may already belong to other processes).
        for (const pid of driver.workerPids()) {
          try {
            process.kill(pid, 'SIGKILL')
          } catch {
            // Already gone.
          }
        }
        throw err
      },
    )
    return { child: driver.child, cancel: () => driver.cancel(), done }
  }

  /** The vocabulary: a second name of the last checkpoint, and its record. */
  async function saveVocabulary(
    run: Run,
    trained: TrainedRun,
    { inOrder, record }: JobContext,
  ): Promise<void> {
    const vocabularyId = randomUUID()
    const path = vocabularyPath(paths, vocabularyId)
    await inOrder(
      async () =>
        void (await record('progress', { phase: 'saving', fraction: 1, message: 'writing the vocabulary' })),
    )
    await linkOrCopy(trained.file, path)
    await repo.insertVocabulary({ id: vocabularyId, runId: run.id, k: run.params.k, d: trained.d, path })
    await repo.setVocabulary(run.id, vocabularyId)
    await inOrder(
      async () =>
        void (await say(
          record,
          'info',
          `Vocabulary ${vocabularyId} saved: ${run.params.k} × ${trained.d} float32.`,
        )),
    )
  }

  /**
   * Removes a deleted run's folder (checkpoints); a kept vocabulary's cached assignments (under
   * `assignments/`) stay, since the vocabulary still serves them.
   */
  async function removeRunFolder(id: string, keepAssignments: boolean): Promise<void> {
    const dir = join(paths.runs, id)
    if (!keepAssignments) {
      await rm(dir, { recursive: true, force: true })
      return
    }
    const names = await readdir(dir).catch(() => [] as string[])
    await Promise.all(
      names
        .filter((name) => !name.startsWith('assignments'))
        .map((name) => rm(join(dir, name), { recursive: true, force: true })),
    )
  }

  /** The params as stored: a named topology pinned to the version it had at launch. */
  async function withTopologyVersion(params: RunParams): Promise<RunParams> {
    const placed = await runPlacement(params, deps.getTopology)
    return placed === null ? params : { ...params, topologyVersion: placed.version }
  }

  return {
    async create(params) {
      jobs.ensureRoom()
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
      await jobs.submit(run)
      return run
    },
    get: jobs.stored,
    list: (query) => repo.list(query),
    async update(id, labels) {
      const run = await repo.updateLabels(id, labels)
      if (run === undefined) throw runNotFound(id)
      deps.changed?.({ id, change: 'labels' })
      return run
    },
    async remove(id, keepOrDelete) {
      const before = await jobs.stored(id)
      // Cancelled first: its workers are gone and its last updates written before anything is deleted.
      if (!isFinalJobStatus(before.status)) await jobs.stop(id)
      const run = await jobs.stored(id)
      const vocabularyId = run.vocabularyId ?? null
      let kept: { id: string; origin: VocabularyOrigin } | undefined
      if (vocabularyId !== null && keepOrDelete === 'keep') {
        const rows = await repo.iterations(id)
        kept = {
          id: vocabularyId,
          origin: {
            datasetId: run.datasetId,
            params: run.params,
            inertia: run.inertia,
            inertiaHistory: rows.map((r) => r.inertia),
          },
        }
      } else if (vocabularyId !== null) {
        await deps.removeVocabulary?.(vocabularyId)
      }
      if (!(await repo.remove(id, kept))) throw runNotFound(id)
      await deps.feed.remove('run', id)
      await removeRunFolder(id, kept !== undefined)
      deps.changed?.({ id, change: 'deleted' })
    },
    async iterations(id) {
      await jobs.stored(id)
      return repo.iterations(id)
    },
    cancel: jobs.cancel,
    resume: jobs.resume,
    async vocabulary(id) {
      const stored = await repo.getVocabulary(id)
      if (stored === undefined) throw new ApiError(404, 'VOCABULARY_NOT_FOUND', `no vocabulary with id ${id}`)
      const { path: _, origin, ...vocabulary } = stored
      // The file is looked up in this home (the stored path is where it was written, maybe another mount).
      return { vocabulary, file: vocabularyPath(paths, id), origin }
    },
    events: jobs.events,
    settled: jobs.settled,
    workerPids: (id) => drivers.get(id)?.workerPids() ?? [],
    driverPid: jobs.childPid,
    async start() {
      await Promise.all([
        mkdir(paths.runs, { recursive: true }),
        mkdir(paths.vocabularies, { recursive: true }),
      ])
      await jobs.start()
    },
    shutdown: jobs.shutdown,
  }
}
