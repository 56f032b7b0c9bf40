import { rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { STORE_PICTURE_NAMES } from '@codebook/runtime/formats'
import type { VocabularySummary } from '@codebook/shared'
import { ApiError } from '../http/api-error.ts'
import type { AssignmentRunner } from './assignments/assignment-runner.ts'
import { ASSIGNMENTS_CSV, ASSIGNMENTS_NPY, partialDir } from './assignments/compute-assignments.ts'
import type { VocabularyRecord, VocabularyRepo } from './vocabulary-repo.ts'

/** Folders of the data home the service reads and writes (absolute). */
export interface VocabularyPaths {
  /** `datasets/<id>/` holds a ready dataset's `vectors.npy` (+ `ids.npy`). */
  datasets: string
  /** `runs/<runId>/assignments/` caches a run's assignments. */
  runs: string
  /** `vocabularies/<id>.npy`: the centroids. */
  vocabularies: string
}

/** Where the cached assignments of one vocabulary are, by format. */
export interface AssignmentFiles {
  npy: string
  csv: string
}

/** The service behind `/api/vocabularies`: summaries, delete, assignments. */
export interface VocabularyService {
  /** Every vocabulary, newest first. */
  list(): Promise<VocabularySummary[]>
  /** @throws ApiError 404 `VOCABULARY_NOT_FOUND`. */
  get(id: string): Promise<VocabularySummary>
  /**
   * Removes the record, the centroids file and the cached assignments; the run stays, without a
   * `vocabularyId`. A running assignment computation for it is stopped first.
   * @throws ApiError 404 `VOCABULARY_NOT_FOUND`.
   */
  remove(id: string): Promise<void>
  /**
   * The assignments of every dataset vector to this vocabulary, computed in a child process on
   * first use and cached under the run's folder.
   * @throws ApiError 404 `VOCABULARY_NOT_FOUND` / `VOCABULARY_FILE_MISSING`, 409 `DATASET_DELETED`,
   *   503 `ASSIGNMENTS_BUSY`.
   */
  assignments(id: string): Promise<AssignmentFiles>
  /**
   * The vocabulary's k, d and centroids file (`.npy`, k × d float32), for an evaluation's child.
   * @throws ApiError 404 `VOCABULARY_NOT_FOUND` / `VOCABULARY_FILE_MISSING`.
   */
  centroids(id: string): Promise<VocabularyCentroids>
}

/** Where a vocabulary's centroids are, with its shape. */
export interface VocabularyCentroids {
  id: string
  k: number
  d: number
  file: string
}

/** Size of a file, or null when it does not exist. */
async function sizeOf(file: string): Promise<number | null> {
  return stat(file).then(
    (s) => s.size,
    () => null,
  )
}

/** Creates the {@link VocabularyService}. */
export function createVocabularyService(deps: {
  repo: VocabularyRepo
  paths: VocabularyPaths
  runner: AssignmentRunner
}): VocabularyService {
  const { repo, paths, runner } = deps
  const centroidsFile = (id: string) => join(paths.vocabularies, `${id}.npy`)
  const assignmentsDir = (runId: string) => join(paths.runs, runId, 'assignments')
  const filesIn = (dir: string): AssignmentFiles => ({
    npy: join(dir, ASSIGNMENTS_NPY),
    csv: join(dir, ASSIGNMENTS_CSV),
  })

  async function summary(v: VocabularyRecord): Promise<VocabularySummary> {
    const files = filesIn(assignmentsDir(v.runId))
    const [sizeBytes, npy, csv, names] = await Promise.all([
      sizeOf(centroidsFile(v.id)),
      sizeOf(files.npy),
      sizeOf(files.csv),
      sizeOf(join(paths.datasets, v.datasetId, STORE_PICTURE_NAMES)),
    ])
    return {
      ...v,
      datasetExists: v.datasetName !== null,
      sizeBytes,
      assignmentsBytes: npy === null || csv === null ? null : npy + csv,
      pictureNames: v.datasetName !== null && names !== null,
    }
  }

  async function record(id: string): Promise<VocabularyRecord> {
    const v = await repo.get(id)
    if (v === undefined) throw new ApiError(404, 'VOCABULARY_NOT_FOUND', `no vocabulary with id ${id}`)
    return v
  }

  /** The centroids file; 404 `VOCABULARY_FILE_MISSING` when it is gone. */
  async function existingCentroidsFile(id: string): Promise<string> {
    const file = centroidsFile(id)
    if ((await sizeOf(file)) === null)
      throw new ApiError(404, 'VOCABULARY_FILE_MISSING', `the centroids file of vocabulary ${id} is missing`)
    return file
  }

  return {
    async list() {
      return Promise.all((await repo.list()).map(summary))
    },

    async get(id) {
      return summary(await record(id))
    },

    async remove(id) {
      const v = await record(id)
      // The record goes first, so no new computation can start for it; then the running one is stopped.
      if (!(await repo.remove(id)))
        throw new ApiError(404, 'VOCABULARY_NOT_FOUND', `no vocabulary with id ${id}`)
      await runner.cancel(id)
      const dir = assignmentsDir(v.runId)
      await Promise.all([
        rm(centroidsFile(id), { force: true }),
        rm(dir, { recursive: true, force: true }),
        rm(partialDir(dir), { recursive: true, force: true }),
      ])
    },

    async centroids(id) {
      const v = await record(id)
      const file = await existingCentroidsFile(id)
      return { id, k: v.k, d: v.d, file }
    },

    async assignments(id) {
      const v = await record(id)
      const dir = assignmentsDir(v.runId)
      const files = filesIn(dir)
      // Both files appear together (the folder is renamed into place when complete).
      if ((await sizeOf(files.npy)) !== null) return files
      if (v.datasetName === null)
        throw new ApiError(
          409,
          'DATASET_DELETED',
          `dataset ${v.datasetId} of vocabulary ${id} was deleted; its vectors are gone`,
        )
      const vocabularyFile = await existingCentroidsFile(id)
      await runner.compute(id, {
        datasetDir: join(paths.datasets, v.datasetId),
        vocabularyFile,
        outDir: dir,
      })
      return files
    },
  }
}
