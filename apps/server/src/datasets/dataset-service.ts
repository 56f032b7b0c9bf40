import { randomUUID } from 'node:crypto'
import { access, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { CodebookError } from '@codebook/runtime/errors'
import { readPictureNames, readStoredRows, STORE_PICTURE_NAMES } from '@codebook/runtime/formats'
import {
  type Dataset,
  type DatasetEvent,
  type DatasetFormat,
  type DatasetPreview,
  type ListPageQuery,
  VectorStats,
} from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { type ChildJob, ChildJobError } from '../child/child-job.ts'
import type { ListPage } from '../db/list-page.ts'
import type { HomePaths } from '../home/home-plugin.ts'
import { ApiError, datasetNotFound } from '../http/api-error.ts'
import { createJobQueue, JobStopped } from '../jobs/job-queue.ts'
import {
  type DatasetImportOptions,
  IMPORT_CHILD_LIMITS,
  type ImportChildLimits,
  runImportProcess,
} from './dataset-import-process.ts'
import type { DatasetRepo } from './dataset-repo.ts'
import { DISK_RESERVE_BYTES, type DiskRoom, diskRoom, insufficientSpace } from './disk-space.ts'
import { removeImportLeftovers, removeStrayUploads, removeTemporaries } from './import-leftovers.ts'
import { DEMO_UPLOAD_PREFIX, DIRECT_UPLOAD_PREFIX } from './upload-names.ts'

/** Minimum time between two progress writes/events of one import: keeps the DB and sockets quiet on fast imports. */
export const PROGRESS_INTERVAL_MS = 250

/** Import children running at once (each may use its RSS bound); further imports wait `processing` at 0, in order. */
export const MAX_CONCURRENT_IMPORTS = 2

/** An uploaded file to turn into a dataset. */
export interface ImportRequest {
  name: string
  format: DatasetFormat | undefined
  /** Absolute path of the uploaded file; deleted once processing ends, whatever the outcome. */
  uploadPath: string
  /** tus upload id or direct-upload file name, to find the dataset from the upload later. */
  uploadId: string
  sourceBytes: number
}

/** Dependencies of {@link createDatasetService}, passed in so tests use real ones on a temp home. */
export interface DatasetServiceDeps {
  repo: DatasetRepo
  paths: HomePaths
  emit: (event: DatasetEvent) => void
  log: FastifyBaseLogger
  /** Passed unchanged to the runtime's `importToStore` (`maxExpandedBytes`, …). */
  importOptions?: DatasetImportOptions
  /** Memory limits of the import child (default {@link IMPORT_CHILD_LIMITS}). */
  childLimits?: ImportChildLimits
  /**
   * Free disk an import never takes (default {@link DISK_RESERVE_BYTES}): an upload larger than
   * the free space above it is refused, a gzip may expand only into it (`maxExpandedBytes` is the
   * smaller of the configured bound and that room), and the child stops when the free space falls
   * under it; each `INSUFFICIENT_SPACE`.
   */
  diskReserveBytes?: number
}

/** Datasets: import uploads in the background, list, preview, delete. */
export interface DatasetService {
  /** Creates the record (status `processing`) and starts the import; resolves once the record exists. */
  startImport(request: ImportRequest): Promise<Dataset>
  /** Resolves with the final record once the dataset's import has ended (at once if it is not running). */
  settled(id: string): Promise<Dataset>
  get(id: string): Promise<Dataset>
  findByUploadId(uploadId: string): Promise<Dataset | undefined>
  /** One page of datasets, newest first. */
  list(page: ListPageQuery): Promise<ListPage<Dataset>>
  preview(id: string, rows: number): Promise<DatasetPreview>
  /**
   * The picture-name table of a ready dataset whose HOG picture ids were names (line i names
   * picture index i, the `picture` of the `.npy` assignments).
   * @throws ApiError 404 `DATASET_NOT_FOUND` / `NO_PICTURE_NAMES`, 409 `DATASET_NOT_READY`.
   */
  pictureNamesFile(id: string): Promise<string>
  /** Cancels a running import (AbortSignal), then removes the files and the record. */
  remove(id: string): Promise<void>
  /**
   * Marks records left `processing` by a dead server as failed `INTERRUPTED` and removes their files
   * and uploads, every import temporary left under `datasets/`, and stray direct or demo uploads
   * (call before any import starts or upload arrives).
   */
  recoverInterrupted(): Promise<number>
  /** Aborts every waiting and running import and waits until each is marked failed (`INTERRUPTED`). */
  shutdown(): Promise<void>
  /** PID of the child process importing dataset `id`, if one runs (tests). */
  importPid(id: string): number | undefined
}

/** An import waiting for its turn or running. */
interface PendingImport {
  request: ImportRequest
  /** PID of the import child while it runs (tests). */
  pid?: number
}

const interrupted = {
  code: 'INTERRUPTED',
  message: 'the server stopped during processing; upload the file again',
}

/** A coded error: the runtime's (raised in the child, carried over by `ChildJobError`) or the server's. */
function isCoded(err: unknown): err is CodebookError | ChildJobError {
  return err instanceof CodebookError || err instanceof ChildJobError
}

/** EXPANDED_TOO_LARGE under a bound the free space set (not the configured one) is INSUFFICIENT_SPACE. */
function spaceOfExpansion(err: unknown, room: DiskRoom): unknown {
  if (!(err instanceof ChildJobError) || err.code !== 'EXPANDED_TOO_LARGE') return err
  return insufficientSpace(room, `the gzip expands past the ${room.usable} bytes of disk this import may use`)
}

/** Directory of a dataset's stored files. */
export function datasetDir(paths: HomePaths, id: string): string {
  return join(paths.datasets, id)
}

/** Creates the dataset service. */
export function createDatasetService(deps: DatasetServiceDeps): DatasetService {
  const { repo, paths, emit, log } = deps
  const pending = new Map<string, PendingImport>()
  const imports = createJobQueue(
    {
      name: 'import',
      concurrency: MAX_CONCURRENT_IMPORTS,
      closedError: () =>
        new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down; retry the upload after it restarts'),
      run: (id, signal) => runImport(id, signal),
      // Deleted or shut down before its turn: the upload goes, the record says why.
      dropped: (id, stop) => failImport(id, stop, stop),
    },
    log,
  )

  async function removeUpload(uploadPath: string): Promise<void> {
    // tus keeps the upload's metadata beside it as <id>.json.
    await Promise.all([rm(uploadPath, { force: true }), rm(`${uploadPath}.json`, { force: true })])
  }

  function emitState(dataset: Dataset): void {
    emit({ datasetId: dataset.id, type: 'state', data: dataset })
  }

  /** Runs the import child; resolves with its stats, rejects with its coded error or the abort reason. */
  async function importInChild(
    id: string,
    request: ImportRequest,
    signal: AbortSignal,
    run: PendingImport,
  ): Promise<VectorStats> {
    let lastWrite = 0
    let progressWrites: Promise<void> = Promise.resolve()
    let stats: unknown
    const reserve = deps.diskReserveBytes ?? DISK_RESERVE_BYTES
    // A file system statfs cannot read is not checked (the child's watch skips it too).
    const room = await diskRoom(paths.datasets, reserve).catch((err: unknown) => {
      log.warn({ err, datasetId: id }, 'free disk space unknown; import not checked against it')
      return { free: Number.POSITIVE_INFINITY, reserve, usable: Number.POSITIVE_INFINITY }
    })
    // A plain upload's stored rows take about its size (text shrinks, .npy stays the same).
    if (request.sourceBytes > room.usable)
      throw insufficientSpace(
        room,
        `the upload needs about ${request.sourceBytes} bytes of disk to import, more than the ${room.usable} it may use`,
      )
    const configured = deps.importOptions?.maxExpandedBytes ?? Number.POSITIVE_INFINITY
    const maxExpandedBytes = Math.min(configured, room.usable)
    const proc: ChildJob = runImportProcess(
      {
        uploadPath: request.uploadPath,
        destDir: datasetDir(paths, id),
        format: request.format,
        // Infinity would reach the child as null (JSON): no bound is no key.
        options: Number.isFinite(maxExpandedBytes)
          ? { ...deps.importOptions, maxExpandedBytes }
          : { ...deps.importOptions },
        progressIntervalMs: PROGRESS_INTERVAL_MS,
        maxRssBytes: (deps.childLimits ?? IMPORT_CHILD_LIMITS).maxRssBytes,
        diskReserveBytes: reserve,
      },
      deps.childLimits ?? IMPORT_CHILD_LIMITS,
      (message) => {
        if (message.type === 'ready') {
          stats = message.stats
          return
        }
        const p = message.progress
        // The child throttles too; this keeps the bound when messages queue up.
        const now = Date.now()
        if (now - lastWrite < PROGRESS_INTERVAL_MS) return
        lastWrite = now
        const fraction = p.totalBytes > 0 ? Math.min(1, p.bytesRead / p.totalBytes) : 0
        emit({ datasetId: id, type: 'progress', data: { fraction, rows: p.rows } })
        // Chained so writes land in order and the final state is written after the last of them.
        progressWrites = progressWrites
          .then(() => repo.setProgress(id, fraction))
          .catch((err) => log.warn({ err, datasetId: id }, 'progress write failed'))
      },
    )
    run.pid = proc.child.pid
    // Delete and shutdown kill the child at once: the parent removes what it leaves (see below).
    const kill = () => void proc.stop(0)
    signal.addEventListener('abort', kill, { once: true })
    try {
      await proc.done.catch((err: unknown) => {
        throw maxExpandedBytes < configured ? spaceOfExpansion(err, room) : err
      })
    } finally {
      signal.removeEventListener('abort', kill)
      run.pid = undefined
      await progressWrites
    }
    signal.throwIfAborted()
    const parsed = VectorStats.safeParse(stats)
    if (parsed.success) return parsed.data
    // The runtime keeps every statistic finite (float64); should one still not fit, the client
    // gets a code, the schema's issues go to the log.
    log.error({ datasetId: id, issues: parsed.error.issues.slice(0, 5) }, 'import stats invalid')
    throw new ChildJobError(
      'IMPORT_STATS_INVALID',
      'the statistics of this file could not be stored; nothing was kept',
    )
  }

  /** A stored error for a failed import: the child's code, its message without server paths. */
  function failureOf(err: unknown, request: ImportRequest): { code: string; message: string } {
    // Uncoded: a bug or the database; its text (a query, a path) goes to the log only (see failImport).
    if (!isCoded(err)) return { code: 'IMPORT_FAILED', message: 'processing failed; see the server log' }
    // Runtime messages name the file; the client knows it by its own name, not our upload path.
    const message = err.message
      .replaceAll(request.uploadPath, 'upload')
      .replaceAll(paths.home, 'CODEBOOK_HOME')
    return { code: err.code, message }
  }

  async function runImport(id: string, signal: AbortSignal): Promise<void> {
    const run = pending.get(id)
    if (run === undefined) return
    try {
      const stats = await importInChild(id, run.request, signal, run)
      const ready = await repo.markReady(id, stats)
      if (ready) emitState(ready.dataset)
      log.info({ datasetId: id, n: stats.n, d: stats.d }, 'dataset ready')
      pending.delete(id)
      await removeUpload(run.request.uploadPath)
    } catch (err) {
      await failImport(id, err, signal.aborted ? signal.reason : undefined)
    }
  }

  /**
   * Ends import `id` as failed: its partial files and upload removed, the record failed with the
   * child's coded error, or `INTERRUPTED` when it was stopped (`stop`).
   */
  async function failImport(id: string, err: unknown, stop: JobStopped | undefined): Promise<void> {
    const run = pending.get(id)
    pending.delete(id)
    if (run === undefined) return
    try {
      // A killed or crashed child cannot clean up: its partial dataset and temporaries go here.
      await removeImportLeftovers(paths.datasets, id)
      const error = stop !== undefined ? interrupted : failureOf(err, run.request)
      if (stop === undefined && !isCoded(err)) log.error({ err, datasetId: id }, 'import crashed')
      else if (error.code === 'IMPORT_CRASHED' || error.code === 'IMPORT_MEMORY_LIMIT')
        // Not the file's format but its size or the child's end: worth the operator's eye.
        log.warn({ datasetId: id, code: error.code }, 'import child stopped')
      else log.info({ datasetId: id, code: error.code }, 'dataset failed')
      const failed = await repo.markFailed(id, error)
      if (failed) emitState(failed.dataset)
    } finally {
      await removeUpload(run.request.uploadPath)
    }
  }

  async function getStored(id: string) {
    const stored = await repo.get(id)
    if (stored === undefined) throw datasetNotFound(id)
    return stored
  }

  return {
    async startImport(request) {
      imports.ensureRoom()
      const id = randomUUID()
      const stored = await repo.insert({
        id,
        name: request.name,
        format: request.format ?? null,
        sourceBytes: request.sourceBytes,
        uploadId: request.uploadId,
      })
      emitState(stored.dataset)
      pending.set(id, { request })
      imports.submit(id)
      return stored.dataset
    },

    async settled(id) {
      await imports.settled(id)
      return (await getStored(id)).dataset
    },

    async get(id) {
      return (await getStored(id)).dataset
    },

    async findByUploadId(uploadId) {
      return (await repo.getByUploadId(uploadId))?.dataset
    },

    list: (page) => repo.list(page),

    async pictureNamesFile(id) {
      const { dataset } = await getStored(id)
      if (dataset.status !== 'ready')
        throw new ApiError(409, 'DATASET_NOT_READY', `dataset ${id} is ${dataset.status}`)
      const file = join(datasetDir(paths, id), STORE_PICTURE_NAMES)
      await access(file).catch(() => {
        throw new ApiError(
          404,
          'NO_PICTURE_NAMES',
          `dataset ${id} has no picture names: its picture ids were numbers (or it has no ids)`,
        )
      })
      return file
    },

    async preview(id, rows) {
      const stored = await getStored(id)
      if (stored.dataset.status !== 'ready' || stored.stats === null) {
        throw new ApiError(
          409,
          'DATASET_NOT_READY',
          `dataset ${id} is ${stored.dataset.status}; preview needs a ready dataset`,
        )
      }
      const count = Math.min(rows, stored.stats.n)
      const block = await readStoredRows(datasetDir(paths, id), 0, count)
      // Stored ids are int32; a source that named its pictures keeps the names beside them.
      const names = block.ids === null ? null : await readPictureNames(datasetDir(paths, id))
      const out: DatasetPreview['rows'] = []
      for (let i = 0; i < count; i++) {
        const ids = block.ids === null ? null : Array.from(block.ids.subarray(i * 3, i * 3 + 3))
        out.push({
          index: i,
          ids,
          picture: names === null || ids === null ? null : (names[ids[0]!] ?? null),
          values: Array.from(block.values.subarray(i * block.d, (i + 1) * block.d)),
        })
      }
      return { datasetId: id, rows: out, stats: stored.stats }
    },

    async remove(id) {
      const stored = await getStored(id)
      await imports.cancel(id, new JobStopped('cancelled', 'dataset deleted during processing'))
      await removeImportLeftovers(paths.datasets, id)
      if (stored.uploadId !== null) await removeUpload(join(paths.uploads, stored.uploadId))
      await repo.delete(id)
      emit({ datasetId: id, type: 'deleted', data: {} })
    },

    async recoverInterrupted() {
      const stale = await repo.listProcessing()
      for (const stored of stale) {
        if (imports.state(stored.dataset.id) !== undefined) continue
        await removeImportLeftovers(paths.datasets, stored.dataset.id)
        if (stored.uploadId !== null) await removeUpload(join(paths.uploads, stored.uploadId))
        await repo.markFailed(stored.dataset.id, interrupted)
        log.warn({ datasetId: stored.dataset.id }, 'dataset interrupted by a restart marked failed')
      }
      // Temporaries of imports whose record is gone or already ended (a crash between steps).
      const removed = await removeTemporaries(
        paths.datasets,
        (dataset) => imports.state(dataset) !== undefined,
      )
      if (removed > 0) log.warn({ count: removed }, 'removed import temporaries left by a crash')
      // Direct and demo uploads the dead server was still receiving or staging (tus expires its own).
      const uploads = await removeStrayUploads(paths.uploads, [DIRECT_UPLOAD_PREFIX, DEMO_UPLOAD_PREFIX])
      if (uploads > 0) log.warn({ count: uploads }, 'removed uploads left by a crash')
      return stale.length
    },

    shutdown: () => imports.close(),

    importPid: (id) => pending.get(id)?.pid,
  }
}
