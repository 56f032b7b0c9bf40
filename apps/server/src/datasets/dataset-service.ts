import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { CodebookError, importToStore, readStoredRows } from '@codebook/runtime'
import type { Dataset, DatasetEvent, DatasetFormat, DatasetPreview } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { HomePaths } from '../home/home-plugin.ts'
import { ApiError, datasetNotFound } from '../http/api-error.ts'
import type { DatasetRepo } from './dataset-repo.ts'

/** Minimum time between two progress writes/events of one import: keeps the DB and sockets quiet on fast imports. */
export const PROGRESS_INTERVAL_MS = 250

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
}

/** Datasets: import uploads in the background, list, preview, delete. */
export interface DatasetService {
  /** Creates the record (status `processing`) and starts the import; resolves once the record exists. */
  startImport(request: ImportRequest): Promise<Dataset>
  /** Resolves with the final record once the dataset's import has ended (at once if it is not running). */
  settled(id: string): Promise<Dataset>
  get(id: string): Promise<Dataset>
  findByUploadId(uploadId: string): Promise<Dataset | undefined>
  list(): Promise<Dataset[]>
  preview(id: string, rows: number): Promise<DatasetPreview>
  /** Cancels a running import (AbortSignal), then removes the files and the record. */
  remove(id: string): Promise<void>
  /** Marks records left `processing` by a dead server as failed `INTERRUPTED` and removes their files. */
  recoverInterrupted(): Promise<number>
  /** Aborts every running import and waits until each is marked failed (`INTERRUPTED`). */
  shutdown(): Promise<void>
  /** Number of imports running now. */
  running(): number
}

interface RunningImport {
  controller: AbortController
  done: Promise<void>
}

const interrupted = {
  code: 'INTERRUPTED',
  message: 'the server stopped during processing; upload the file again',
}

/** Directory of a dataset's stored files. */
export function datasetDir(paths: HomePaths, id: string): string {
  return join(paths.datasets, id)
}

/** Creates the dataset service. */
export function createDatasetService(deps: DatasetServiceDeps): DatasetService {
  const { repo, paths, emit, log } = deps
  const running = new Map<string, RunningImport>()
  let closed = false

  async function removeUpload(uploadPath: string): Promise<void> {
    // tus keeps the upload's metadata beside it as <id>.json.
    await Promise.all([rm(uploadPath, { force: true }), rm(`${uploadPath}.json`, { force: true })])
  }

  function emitState(dataset: Dataset): void {
    emit({ datasetId: dataset.id, type: 'state', data: dataset })
  }

  async function runImport(id: string, request: ImportRequest, signal: AbortSignal): Promise<void> {
    const dir = datasetDir(paths, id)
    let lastWrite = 0
    let progressWrites: Promise<void> = Promise.resolve()
    try {
      const stats = await importToStore(request.uploadPath, dir, {
        format: request.format,
        signal,
        onProgress: (p) => {
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
      })
      await progressWrites
      const ready = await repo.markReady(id, stats)
      if (ready) emitState(ready.dataset)
      log.info({ datasetId: id, n: stats.n, d: stats.d }, 'dataset ready')
    } catch (err) {
      await progressWrites
      await rm(dir, { recursive: true, force: true })
      const error = signal.aborted
        ? interrupted
        : err instanceof CodebookError
          ? // Runtime messages name the file; the client knows it by its own name, not our upload path.
            { code: err.code, message: err.message.replaceAll(request.uploadPath, 'upload') }
          : { code: 'IMPORT_FAILED', message: `processing failed: ${(err as Error).message}` }
      if (!signal.aborted && !(err instanceof CodebookError))
        log.error({ err, datasetId: id }, 'import crashed')
      else log.info({ datasetId: id, code: error.code }, 'dataset failed')
      const failed = await repo.markFailed(id, error)
      if (failed) emitState(failed.dataset)
    } finally {
      await removeUpload(request.uploadPath)
    }
  }

  async function getStored(id: string) {
    const stored = await repo.get(id)
    if (stored === undefined) throw datasetNotFound(id)
    return stored
  }

  return {
    async startImport(request) {
      if (closed) {
        throw new ApiError(
          503,
          'SHUTTING_DOWN',
          'the server is shutting down; retry the upload after it restarts',
        )
      }
      const id = randomUUID()
      const stored = await repo.insert({
        id,
        name: request.name,
        format: request.format ?? null,
        sourceBytes: request.sourceBytes,
        uploadId: request.uploadId,
      })
      emitState(stored.dataset)
      const controller = new AbortController()
      const done = runImport(id, request, controller.signal)
        .catch((err) => log.error({ err, datasetId: id }, 'could not record the end of an import'))
        .finally(() => running.delete(id))
      running.set(id, { controller, done })
      return stored.dataset
    },

    async settled(id) {
      await running.get(id)?.done
      return (await getStored(id)).dataset
    },

    async get(id) {
      return (await getStored(id)).dataset
    },

    async findByUploadId(uploadId) {
      return (await repo.getByUploadId(uploadId))?.dataset
    },

    list: () => repo.list(),

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
      const out: DatasetPreview['rows'] = []
      for (let i = 0; i < count; i++) {
        out.push({
          index: i,
          ids: block.ids === null ? null : Array.from(block.ids.subarray(i * 3, i * 3 + 3)),
          values: Array.from(block.values.subarray(i * block.d, (i + 1) * block.d)),
        })
      }
      return { datasetId: id, rows: out, stats: stored.stats }
    },

    async remove(id) {
      const stored = await getStored(id)
      const run = running.get(id)
      if (run) {
        run.controller.abort(new ApiError(409, 'DATASET_DELETED', 'dataset deleted during processing'))
        await run.done
      }
      await rm(datasetDir(paths, id), { recursive: true, force: true })
      if (stored.uploadId !== null) await removeUpload(join(paths.uploads, stored.uploadId))
      await repo.delete(id)
      emit({ datasetId: id, type: 'deleted', data: {} })
    },

    async recoverInterrupted() {
      const stale = await repo.listProcessing()
      for (const stored of stale) {
        if (running.has(stored.dataset.id)) continue
        await rm(datasetDir(paths, stored.dataset.id), { recursive: true, force: true })
        if (stored.uploadId !== null) await removeUpload(join(paths.uploads, stored.uploadId))
        await repo.markFailed(stored.dataset.id, interrupted)
        log.warn({ datasetId: stored.dataset.id }, 'dataset interrupted by a restart marked failed')
      }
      return stale.length
    },

    async shutdown() {
      closed = true
      const all = [...running.values()]
      for (const run of all) run.controller.abort(new CodebookError('INTERRUPTED', interrupted.message))
      await Promise.all(all.map((run) => run.done))
    },

    running: () => running.size,
  }
}
