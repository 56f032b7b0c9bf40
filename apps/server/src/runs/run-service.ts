import type { ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import {
  CodebookError,
  openNpy,
  runKmeans,
  type SpawnWorker,
  spawnLocalWorker,
  WorkerPool,
  workerRacks,
  writeNpy,
} from '@codebook/runtime'
import type {
  Dataset,
  IterationReport,
  Run,
  RunEvent,
  RunEventType,
  RunLogData,
  RunParams,
  RunProgressData,
  Topology,
  Vocabulary,
} from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import { hideServerPaths } from '../http/hide-paths.ts'
import { initOnRunWorker } from './run-init.ts'
import { FINAL_STATUSES, RESUMABLE_STATUSES, type RunEnding, type RunRepo } from './run-repo.ts'

/** Directories the run service writes to (all absolute, inside `$CODEBOOK_HOME`). */
export interface RunPaths {
  /** `$CODEBOOK_HOME` itself: written as `CODEBOOK_HOME` in stored error messages. */
  home: string
  /** `datasets/`: a ready dataset's vectors are `datasets/<id>/vectors.npy`. */
  datasets: string
  /** `runs/`: `runs/<id>/checkpoint.npy`. */
  runs: string
  /** `vocabularies/`: `vocabularies/<id>.npy`. */
  vocabularies: string
}

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
  /** Starts worker processes (default: local child processes of the server). */
  spawn?: SpawnWorker
  /**
   * A saved topology version (latest when `version` is absent); throws ApiError 404 when unknown.
   * Without it runs cannot name a topology.
   */
  getTopology?: (id: string, version?: number) => Promise<{ topology: Topology; version: number }>
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
  /** Start-up: `running` runs left by the last server become `interrupted`; queued runs are queued again. */
  start(): Promise<void>
  /** Stops taking runs; running ones are aborted and marked `interrupted` (queued ones stay queued). */
  shutdown(): Promise<void>
}

/** Least time between two `iterating` progress events of a run. */
const PROGRESS_INTERVAL_MS = 1000

/** Why a run was aborted; decides its final status. */
class RunAbort extends Error {
  constructor(readonly status: 'cancelled' | 'interrupted') {
    super(status === 'cancelled' ? 'run cancelled' : 'server shutting down')
  }
}

interface ActiveRun {
  controller: AbortController
  done: Promise<void>
  /** Worker processes spawned for this run that have not exited yet. */
  children: Set<ChildProcess>
}

/** `RUN_NOT_FOUND` (404). */
export function runNotFound(id: string): ApiError {
  return new ApiError(404, 'RUN_NOT_FOUND', `no run with id ${id}`)
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/** The vectors of a ready dataset inside the data home. */
export function datasetVectorsPath(paths: RunPaths, datasetId: string): string {
  return join(paths.datasets, datasetId, 'vectors.npy')
}

/** Where a run's checkpoint (the centroids after `checkpointIteration` iterations) is written. */
export function checkpointPath(paths: RunPaths, runId: string): string {
  return join(paths.runs, runId, 'checkpoint.npy')
}

/** Where a vocabulary's centroids (k × d float32 .npy) are written. */
export function vocabularyPath(paths: RunPaths, vocabularyId: string): string {
  return join(paths.vocabularies, `${vocabularyId}.npy`)
}

/** Creates the {@link RunService}. Call `start()` once the app is ready. */
export function createRunService(deps: RunServiceDeps): RunService {
  const { repo, paths, log } = deps
  const baseSpawn = deps.spawn ?? spawnLocalWorker
  const queue: string[] = []
  const active = new Map<string, ActiveRun>()
  /** Per-run chain of event appends: seq order in the DB = emit order. */
  const eventChains = new Map<string, Promise<unknown>>()
  let closed = false

  async function getRun(id: string): Promise<Run> {
    const run = await repo.get(id)
    if (run === undefined) throw runNotFound(id)
    return run
  }

  /** Appends an event and emits it; appends of one run are serialized so seq and emit order agree. */
  function record(runId: string, type: RunEventType, data: unknown): Promise<RunEvent | undefined> {
    const previous = eventChains.get(runId) ?? Promise.resolve()
    const next = previous.then(async () => {
      try {
        const event = await repo.appendEvent(runId, type, data)
        deps.emit(runId, event)
        return event
      } catch (err) {
        log.error({ err, runId, type }, 'run event could not be stored')
        return undefined
      }
    })
    eventChains.set(runId, next)
    void next.then(() => {
      if (eventChains.get(runId) === next) eventChains.delete(runId)
    })
    return next
  }

  /**
   * The topology version a run names and the rack of each worker (worker i = the i-th node).
   * @throws UsageError TOPOLOGY_TOO_SMALL (400) when it has fewer nodes than workers.
   */
  async function runPlacement(params: RunParams): Promise<{ version: number; racks: string[] } | null> {
    if (params.topologyId === undefined) return null
    if (deps.getTopology === undefined)
      throw new ApiError(400, 'TOPOLOGY_UNAVAILABLE', 'this server has no topology store')
    const found = await deps.getTopology(params.topologyId, params.topologyVersion)
    return { version: found.version, racks: workerRacks(found.topology, params.workers) }
  }

  /** The params as stored: a named topology pinned to the version it had at launch. */
  async function withTopologyVersion(params: RunParams): Promise<RunParams> {
    const placed = await runPlacement(params)
    return placed === null ? params : { ...params, topologyVersion: placed.version }
  }

  /** A `log` event: what the run is doing, for the run page's log panel. */
  function say(runId: string, level: RunLogData['level'], message: string): Promise<unknown> {
    return record(runId, 'log', { level, message } satisfies RunLogData)
  }

  /** A `progress` event. */
  function progressed(runId: string, data: RunProgressData): Promise<unknown> {
    return record(runId, 'progress', data)
  }

  function pump(): void {
    while (!closed && active.size < deps.maxConcurrentRuns && queue.length > 0) {
      const id = queue.shift()!
      const run: ActiveRun = {
        controller: new AbortController(),
        done: Promise.resolve(),
        children: new Set(),
      }
      active.set(id, run)
      run.done = execute(id, run)
        .catch((err) => log.error({ err, runId: id }, 'run execution crashed'))
        .finally(() => {
          active.delete(id)
          pump()
        })
    }
  }

  async function end(id: string, ending: RunEnding): Promise<void> {
    const final = await repo.finish(id, ending)
    if (final) await record(id, 'state', final)
  }

  async function execute(id: string, active: ActiveRun): Promise<void> {
    const run = await repo.markRunning(id)
    if (run === undefined) return // cancelled while queued
    await record(id, 'state', run)
    const signal = active.controller.signal
    try {
      const { centroids, k, d } = await train(run, active)
      if (signal.aborted) throw signal.reason
      const vocabularyId = randomUUID()
      const path = vocabularyPath(paths, vocabularyId)
      await progressed(id, { phase: 'saving', fraction: 1, message: 'writing the vocabulary' })
      await writeNpy(path, centroids, k, d)
      await repo.insertVocabulary({ id: vocabularyId, runId: id, k, d, path })
      await say(id, 'info', `Vocabulary ${vocabularyId} saved: ${k} × ${d} float32.`)
      await end(id, { status: 'succeeded', vocabularyId })
    } catch (err) {
      if (signal.aborted) {
        const status = signal.reason instanceof RunAbort ? signal.reason.status : 'cancelled'
        await say(
          id,
          'warn',
          status === 'cancelled'
            ? 'Cancelled: worker processes shut down.'
            : 'Server stopping: run interrupted; resume continues from the last checkpoint.',
        )
        await end(id, {
          status,
          error:
            status === 'cancelled'
              ? { code: 'RUN_CANCELLED', message: 'cancelled by request' }
              : { code: 'INTERRUPTED', message: 'the server stopped while the run was running' },
        })
        return
      }
      const code = err instanceof CodebookError ? err.code : 'RUN_FAILED'
      const message = hideServerPaths(err instanceof Error ? err.message : String(err), paths.home)
      log.warn({ err, runId: id }, 'run failed')
      await say(id, 'error', `${code}: ${message}`)
      await end(id, { status: 'failed', error: { code, message } })
    }
  }

  /** Initial centroids, worker pool, runKmeans with per-iteration events; the pool is closed on every path. */
  async function train(
    run: Run,
    active: ActiveRun,
  ): Promise<{ centroids: Float32Array; k: number; d: number }> {
    const p = run.params
    const signal = active.controller.signal
    const file = datasetVectorsPath(paths, run.datasetId)
    const f = await openNpy(file).catch((err: unknown) => {
      if (err instanceof CodebookError && err.code === 'FILE_NOT_FOUND') {
        throw new CodebookError(
          'DATASET_DELETED',
          `dataset ${run.datasetId} was deleted; its vectors are gone`,
        )
      }
      throw err
    })
    const { n, d } = f
    // A resumed run starts from its checkpoint: iterations done so far are `offset`.
    const offset = run.checkpointIteration ?? 0
    let fromCheckpoint: Float32Array | null = null
    try {
      await progressed(run.id, { phase: 'loading', fraction: 0, message: `dataset ${run.datasetId}` })
      await say(
        run.id,
        'info',
        `Dataset ${run.datasetId}: ${n.toLocaleString('en')} vectors × ${d} dimensions.`,
      )
      await progressed(run.id, { phase: 'init', fraction: 0 })
      if (offset > 0) {
        await say(run.id, 'info', `Resuming from the checkpoint of iteration ${offset}.`)
        fromCheckpoint = await readCheckpoint(run, d)
      }
    } finally {
      await f.close()
    }
    signal.throwIfAborted()
    const remaining = p.maxIterations - offset
    // Interrupted after its last iteration but before the vocabulary was written: nothing left to run.
    if (remaining <= 0 && fromCheckpoint !== null) return { centroids: fromCheckpoint, k: p.k, d }
    const runDir = join(paths.runs, run.id)
    await mkdir(runDir, { recursive: true })

    // Every spawned worker is tracked, so cancel and shutdown can prove none survives; one
    // spawned after the abort (a replacement the runtime starts for a lost rank) is killed at once.
    const spawn: SpawnWorker = (args) => {
      const child = baseSpawn(args)
      active.children.add(child)
      child.once('exit', () => active.children.delete(child))
      if (signal.aborted) child.kill('SIGKILL')
      return child
    }
    const placed = await runPlacement(p)
    if (placed !== null)
      await say(
        run.id,
        'info',
        `Topology ${p.topologyId} v${placed.version}: workers on racks ${[...new Set(placed.racks)].join(', ')}.`,
      )
    const pool = await WorkerPool.start({ workers: p.workers, spawn, racks: placed?.racks })
    await say(
      run.id,
      'info',
      `${p.workers} worker process${p.workers === 1 ? '' : 'es'} started (${p.slots} slot${p.slots === 1 ? '' : 's'} each; broadcast ${p.broadcast}, ${p.reduction === 'regroup' ? `aggregation ${p.aggregation}` : `reduction ${p.reduction}`}, ${p.algorithm}, kernel ${p.kernel}).`,
    )
    const stopLostLog = pool.onWorkerLost((rank) => {
      if (!signal.aborted)
        void say(
          run.id,
          'warn',
          `Worker ${rank} lost: replacing it and re-running the iteration from the checkpoint.`,
        )
    })
    let closing: Promise<void> | undefined
    const closePool = () => {
      closing ??= pool.close()
      return closing
    }
    const onAbort = () => void closePool()
    signal.addEventListener('abort', onAbort, { once: true })

    let progress: Promise<void> = Promise.resolve()
    const iterationsStarted = performance.now()
    let lastProgressAt = Number.NEGATIVE_INFINITY
    // Every iteration's centroids are checkpointed (atomically) before its event is recorded,
    // so a run's last iteration event always has its checkpoint on disk.
    const onIteration = (local: IterationReport, centroids: Float32Array) => {
      const copy = Float32Array.from(centroids)
      // The runtime numbers a resumed run's iterations from 1: continue the run's own numbering.
      const report = { ...local, iteration: local.iteration + offset }
      progress = progress.then(async () => {
        await writeNpy(checkpointPath(paths, run.id), copy, p.k, d)
        await repo.setIteration(run.id, report.iteration, report.inertia, report.iteration)
        await record(run.id, 'iteration', report)
        // Progress at most once a second (and on the last iteration): the iteration events carry the detail.
        const now = performance.now()
        const done = report.iteration - offset
        if (now - lastProgressAt >= PROGRESS_INTERVAL_MS || report.iteration === p.maxIterations) {
          lastProgressAt = now
          const msPerIteration = (now - iterationsStarted) / done
          await progressed(run.id, {
            phase: 'iterating',
            fraction: Math.min(1, report.iteration / p.maxIterations),
            etaSeconds: ((p.maxIterations - report.iteration) * msPerIteration) / 1000,
            message: `iteration ${report.iteration} of at most ${p.maxIterations}`,
          })
        }
      })
    }
    try {
      signal.throwIfAborted()
      // The init runs on worker 0 (its O(k · sample · d) work would otherwise block this event loop).
      const init =
        fromCheckpoint ?? (await initOnRunWorker(pool, file, p, (line) => say(run.id, 'info', line)))
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
        // Local workers share this machine: split its cores between them (as `codebook kmeans`).
        threadsPerTask: Math.max(1, Math.floor(availableParallelism() / p.workers)),
        now: () => performance.now(),
        onIteration,
      })
      await progress
      const iterations = result.iterations + offset
      await say(
        run.id,
        'info',
        iterations < p.maxIterations
          ? `Converged after ${iterations} iterations (relative inertia change ≤ ${p.tol}); inertia ${result.inertia.toPrecision(6)}.`
          : `Stopped at maxIterations = ${p.maxIterations}; inertia ${result.inertia.toPrecision(6)}.`,
      )
      await writeNpy(checkpointPath(paths, run.id), result.centroids, p.k, d)
      await repo.setIteration(run.id, iterations, result.inertia, iterations)
      return { centroids: result.centroids, k: p.k, d }
    } finally {
      stopLostLog()
      signal.removeEventListener('abort', onAbort)
      await progress.catch(() => undefined)
      await closePool().catch((err) => log.warn({ err, runId: run.id }, 'worker pool close failed'))
      // pool.close() SIGKILLs workers that ignore the shutdown for 3 s; anything left is killed here.
      for (const child of active.children) child.kill('SIGKILL')
      await Promise.all([...active.children].map(exited))
    }
  }

  /** The centroids of a run's checkpoint (k × d, as the dataset). */
  async function readCheckpoint(run: Run, d: number): Promise<Float32Array> {
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

  return {
    async create(params) {
      if (closed) throw new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down')
      if (params.workers > deps.maxWorkersPerRun)
        throw new ApiError(
          400,
          'RUN_TOO_LARGE',
          `workers = ${params.workers} exceeds this server's limit of ${deps.maxWorkersPerRun} (CODEBOOK_MAX_WORKERS_PER_RUN)`,
        )
      if (queue.length >= deps.maxQueuedRuns)
        throw new ApiError(
          429,
          'QUEUE_FULL',
          `${queue.length} runs are already queued (CODEBOOK_MAX_QUEUED_RUNS); retry when some have started`,
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
      await record(run.id, 'state', run)
      queue.push(run.id)
      pump()
      return run
    },

    get: getRun,

    list: () => repo.list(),

    async cancel(id) {
      const run = await getRun(id)
      const running = active.get(id)
      if (running) {
        running.controller.abort(new RunAbort('cancelled'))
        await running.done
        return getRun(id)
      }
      if (FINAL_STATUSES.includes(run.status))
        throw new ApiError(409, 'RUN_FINISHED', `run ${id} has already ended (${run.status})`)
      const i = queue.indexOf(id)
      if (i >= 0) queue.splice(i, 1)
      await end(id, {
        status: 'cancelled',
        error: { code: 'RUN_CANCELLED', message: 'cancelled by request' },
      })
      return getRun(id)
    },

    async resume(id) {
      if (closed) throw new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down')
      const run = await getRun(id)
      const requeued = active.has(id) ? undefined : await repo.requeue(id)
      if (requeued === undefined)
        throw new ApiError(
          409,
          'RUN_NOT_RESUMABLE',
          RESUMABLE_STATUSES.includes(run.status) && !active.has(id)
            ? `run ${id} has no checkpoint to resume from`
            : `run ${id} is ${run.status}; only ${RESUMABLE_STATUSES.join(', ')} runs with a checkpoint resume`,
        )
      await record(id, 'state', requeued)
      queue.push(id)
      pump()
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
      await active.get(id)?.done
      const run = await getRun(id)
      if (run.status !== 'queued') return run
      // Still queued: wait until it has been picked up and ended.
      return new Promise<Run>((resolve, reject) => {
        const timer = setInterval(() => {
          const current = active.get(id)
          if (current) {
            clearInterval(timer)
            current.done.then(() => getRun(id)).then(resolve, reject)
          } else if (!queue.includes(id)) {
            clearInterval(timer)
            getRun(id).then(resolve, reject)
          }
        }, 50)
      })
    },

    workerPids(id) {
      const run = active.get(id)
      if (!run) return []
      return [...run.children].flatMap((c) => (c.pid === undefined ? [] : [c.pid]))
    },

    async start() {
      await Promise.all([
        mkdir(paths.runs, { recursive: true }),
        mkdir(paths.vocabularies, { recursive: true }),
      ])
      const interrupted = await repo.interruptRunning()
      for (const run of interrupted) await record(run.id, 'state', run)
      if (interrupted.length > 0)
        log.warn({ count: interrupted.length }, 'runs cut off by the last shutdown marked interrupted')
      for (const run of await repo.listQueued()) queue.push(run.id)
      pump()
    },

    async shutdown() {
      closed = true
      queue.length = 0
      const runs = [...active.values()]
      for (const run of runs) run.controller.abort(new RunAbort('interrupted'))
      await Promise.all(runs.map((run) => run.done))
      await Promise.all([...eventChains.values()])
    },
  }
}
