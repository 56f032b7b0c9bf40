import { randomUUID } from 'node:crypto'
import { CodebookError } from '@codebook/runtime/errors'
import { type VocabularyEvaluation, vocabularyDimensionError } from '@codebook/runtime/evaluation'
import { hogLength } from '@codebook/runtime/images'
import type { CreateEvaluation, Evaluation, EvaluationKResult, JobEvent } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../http/api-error.ts'
import type { StoredImageSet } from '../image-sets/image-set-repo.ts'
import type { ImageSetService } from '../image-sets/image-set-service.ts'
import { hasCode } from '../jobs/follow-child.ts'
import type { JobFeed } from '../jobs/job-feed.ts'
import { createStoredJobs, type JobContext } from '../jobs/stored-jobs.ts'
import type { VocabularyService } from '../vocabularies/vocabulary-service.ts'
import { type EvaluationJob, type EvaluationProcess, runEvaluationProcess } from './evaluation-process.ts'
import { progressTracker } from './evaluation-progress.ts'
import type { EvaluationRepo, StoredEvaluation, StoredEvaluationParams } from './evaluation-repo.ts'

/** Dependencies of {@link createEvaluationService}. */
export interface EvaluationServiceDeps {
  repo: EvaluationRepo
  imageSets: Pick<ImageSetService, 'stored' | 'source'>
  /** Resolves `vocabularyIds` to centroids files. */
  vocabularies: Pick<VocabularyService, 'centroids'>
  /** The job feed the evaluation's events are stored in and sent from. */
  feed: JobFeed
  log: FastifyBaseLogger
  /** The server's home: failure messages name no path under it. */
  home: string
  /** Least time between two progress events of one evaluation (phase or k changes always pass). */
  progressIntervalMs?: number
  /** Starts the child process (tests may wrap it). */
  start?: typeof runEvaluationProcess
}

/** The evaluation service behind `/api/evaluations`: queue (one at a time), child process, cancel. */
export interface EvaluationService {
  /**
   * Checks the image set, the stored vocabularies (404 `VOCABULARY_NOT_FOUND`, 400
   * `VOCABULARY_DIMENSION_MISMATCH`) and parameters, stores the evaluation `queued` and queues it.
   */
  create(input: CreateEvaluation): Promise<Evaluation>
  /** @throws ApiError 404 `EVALUATION_NOT_FOUND`. */
  get(id: string): Promise<Evaluation>
  /** Newest first. */
  list(): Promise<Evaluation[]>
  /**
   * Cancels a queued or running evaluation (a running one's process and workers are stopped) and
   * resolves once it is `cancelled`. @throws ApiError 409 `EVALUATION_FINISHED` when it had ended.
   */
  cancel(id: string): Promise<Evaluation>
  /** Resolves with the record once the evaluation is no longer queued or running. */
  settled(id: string): Promise<Evaluation>
  /** Stored events with seq > after, in order, at most `limit`. @throws ApiError 404 `EVALUATION_NOT_FOUND`. */
  events(id: string, after: number, limit?: number): Promise<JobEvent[]>
  /** Whether a queued or running evaluation uses the image set. */
  usesImageSet(imageSetId: string): Promise<boolean>
  /** PID of the running evaluation's child process, if any. */
  childPid(id: string): number | undefined
  /** Start-up: `running` evaluations left by the last server become `interrupted`; queued ones run again. */
  start(): Promise<void>
  /** Stops: the running evaluation is stopped and marked `interrupted`; queued ones stay queued. */
  shutdown(): Promise<void>
}

/**
 * Maps an evaluated image index back to the image set: with `limitPerClass` L the evaluated set
 * is the first min(L, count) images of each class, class by class, as the set stores them.
 */
export function setIndex(image: number, classCounts: readonly number[], limit: number | null): number {
  if (limit === null) return image
  let offset = 0
  let rest = image
  for (const count of classCounts) {
    const kept = Math.min(limit, count)
    if (rest < kept) return offset + rest
    rest -= kept
    offset += count
  }
  return image
}

/** The API form of one k's runtime result. */
export function toKResult(r: VocabularyEvaluation, params: StoredEvaluationParams): EvaluationKResult {
  return {
    k: r.k,
    ...(r.label !== undefined ? { vocabularyId: r.label } : {}),
    accuracy: r.accuracy,
    // NaN (a class without test images) crosses IPC as null already; keep null either way.
    perClass: r.perClass.map((v) => (v === null || Number.isNaN(v) ? null : v)),
    confusion: r.confusion,
    misclassified: r.misclassified.map((m) => ({
      index: setIndex(m.image, params.classCounts, params.limitPerClass),
      trueLabel: m.label,
      predicted: m.predicted,
    })),
    trainImages: r.trainImages,
    testImages: r.testImages,
    seconds: { vocabulary: r.vocabularySeconds, encode: r.encodeSeconds, train: r.trainSeconds },
  }
}

/** Creates the {@link EvaluationService}. Call `start()` once the app is ready. */
export function createEvaluationService(deps: EvaluationServiceDeps): EvaluationService {
  const { repo } = deps
  const startProcess = deps.start ?? runEvaluationProcess
  const interval = deps.progressIntervalMs ?? 250
  const jobs = createStoredJobs<Evaluation, StoredEvaluation>(
    {
      kind: 'evaluation',
      // One at a time: an evaluation already uses every core (its own K-means workers).
      concurrency: 1,
      store: repo,
      recordOf: (stored) => stored.evaluation,
      launch,
    },
    deps,
  )

  async function launch(
    stored: StoredEvaluation,
    { inOrder, record }: JobContext,
  ): Promise<EvaluationProcess> {
    const { params, evaluation } = stored
    const id = evaluation.id
    const imageSet = await deps.imageSets.stored(params.imageSetId).catch(() => {
      throw new CodebookError('IMAGE_SET_NOT_FOUND', `image set ${params.imageSetId} no longer exists`)
    })
    const job = await jobOf(imageSet, params)
    const tracker = progressTracker([...params.k, ...job.vocabularies.map((v) => v.k)])
    let last: { at: number; key: string } = { at: 0, key: '' }
    return startProcess(job, {
      onProgress: (p) => {
        const progress = tracker(p)
        const key = `${progress.phase}:${progress.k ?? ''}`
        const now = performance.now()
        if (key === last.key && now - last.at < interval) return
        last = { at: now, key }
        void inOrder(async () => {
          await repo.setProgress(id, progress.fraction)
          await record('progress', progress)
        })
      },
      onResult: (r) => {
        const result = toKResult(r, params)
        void inOrder(async () => {
          await repo.appendResult(id, result)
          await record('result', result)
        })
      },
    })
  }

  async function jobOf(imageSet: StoredImageSet, p: StoredEvaluationParams): Promise<EvaluationJob> {
    // Resolved again at start: a vocabulary deleted while the evaluation was queued fails it, coded.
    const vocabularies = await Promise.all(
      (p.vocabularyIds ?? []).map(async (id) => {
        const v = await deps.vocabularies.centroids(id).catch((err: unknown) => {
          const message = err instanceof Error ? err.message : String(err)
          throw new CodebookError(hasCode(err) ? err.code : 'VOCABULARY_NOT_FOUND', message)
        })
        return { id: v.id, file: v.file, k: v.k }
      }),
    )
    return {
      source: deps.imageSets.source(imageSet, p.limitPerClass ?? undefined),
      ks: p.k,
      vocabularies,
      hog: { patch: p.patch, stride: p.stride, cell: p.cell, bins: p.bins },
      trainFraction: p.split,
      seed: p.seed,
    }
  }

  return {
    async create(input) {
      jobs.ensureRoom()
      const { imageSet, layout } = await deps.imageSets.stored(input.imageSetId)
      if (imageSet.status !== 'ready' || imageSet.classes === null)
        throw new ApiError(409, 'IMAGE_SET_NOT_READY', `image set ${imageSet.id} is ${imageSet.status}`)
      try {
        hogLength({ patch: input.patch, cell: input.cell, bins: input.bins })
      } catch (err) {
        if (err instanceof CodebookError) throw new ApiError(400, err.code, err.message)
        throw err
      }
      if (input.patch > layout.minSide)
        throw new ApiError(
          400,
          'IMAGE_TOO_SMALL',
          `patch ${input.patch} does not fit the smallest image of '${imageSet.name}' (${layout.minSide} pixels a side)`,
        )
      const hog = { patch: input.patch, stride: input.stride, cell: input.cell, bins: input.bins }
      const vocabularies = await Promise.all(input.vocabularyIds.map((id) => deps.vocabularies.centroids(id)))
      for (const v of vocabularies) {
        const mismatch = vocabularyDimensionError(v.id, v.d, hog)
        if (mismatch) throw new ApiError(400, mismatch.code, mismatch.message)
      }
      const { name, ...rest } = input
      const params: StoredEvaluationParams = {
        ...rest,
        limitPerClass: input.limitPerClass ?? null,
        imageSetName: imageSet.name,
        classes: imageSet.classes,
        classCounts: layout.classCounts,
      }
      const id = randomUUID()
      const sizes = [...input.k, ...vocabularies.map((v) => v.k)]
      const stored = await repo.insert(id, name ?? `${imageSet.name}, k ${sizes.join('/')}`, params)
      await jobs.submit(stored.evaluation)
      return stored.evaluation
    },
    async get(id) {
      return (await jobs.stored(id)).evaluation
    },
    list: () => repo.list(),
    cancel: jobs.cancel,
    settled: jobs.settled,
    events: jobs.events,
    usesImageSet: (imageSetId) => repo.usesImageSet(imageSetId),
    childPid: jobs.childPid,
    start: jobs.start,
    shutdown: jobs.shutdown,
  }
}
