import { availableParallelism } from 'node:os'
import { UsageError } from '../errors.ts'
import { denseHogSet } from '../features/dense-hog-set.ts'
import { type DenseHogParams, hogLength } from '../features/hog.ts'
import { openNpy } from '../formats/store.ts'
import { type SpawnWorker, spawnLocalWorker } from '../framework/spawn.ts'
import { WorkerPool } from '../framework/worker-pool.ts'
import { kmeansPlusPlus } from '../kmeans/init/kmeans-plus-plus.ts'
import { kernelFactory } from '../kmeans/kernel-registry.ts'
import { createOrtKernel } from '../kmeans/kernels/ort-kernel.ts'
import { runKmeans } from '../kmeans/run-kmeans.ts'
import { createRng } from '../random/rng.ts'
import { encodeBagOfWords, encodeTriangle, type HistogramNorm } from './bag-of-words.ts'
import { type LabelledImageSet, type LabelledImageSource, loadLabelledImages } from './labelled-images.ts'
import { predictLinearSvm, trainLinearSvm } from './linear-svm.ts'
import { classificationReport } from './metrics.ts'
import { stratifiedSplit } from './split.ts'

/** How patches become an image's histogram. */
export type EvaluationEncoding = 'hard' | 'triangle'

/** The stages reported through {@link EvaluateOptions.onProgress}. */
export type EvaluationStage = 'load' | 'features' | 'vocabulary' | 'encode' | 'train' | 'predict'

/**
 * One progress report: `fraction` ∈ [0, 1] of the stage, `k` for the per-vocabulary stages and
 * `label` for a given vocabulary's.
 */
export interface EvaluationProgress {
  stage: EvaluationStage
  fraction: number
  k?: number
  label?: string
}

/**
 * A vocabulary given whole (e.g. one a K-means run learned): no K-means for it, the images'
 * dense HOG patches are encoded with these centroids. `label` names it in the results.
 */
export interface GivenVocabulary {
  label: string
  /** k × d, row-major. */
  centroids: Float32Array
  k: number
  d: number
}

/** Options of {@link evaluateVocabularies}. */
export interface EvaluateOptions {
  source: LabelledImageSource
  /** Vocabulary sizes to learn and evaluate, in this order (may be empty when `vocabularies` is not). */
  ks: number[]
  /** Given vocabularies, evaluated after the learned ones, in this order. */
  vocabularies?: GivenVocabulary[]
  hog: DenseHogParams
  /** Share of each class used for training (default 0.5). */
  trainFraction?: number
  /** Seeds the stratified split (default 1). */
  seed?: number
  /** Seeds the k-means++ init of every vocabulary (default 7). */
  initSeed?: number
  /** Lloyd iterations per vocabulary (default 15; stops early only if no patch changes word). */
  iterations?: number
  /** Worker processes (default 1), map tasks per worker (default 2). Ignored for `workers` when `pool` is given. */
  workers?: number
  slots?: number
  /** Assignment kernel of the map tasks (default 'onnx'). */
  kernel?: string
  /** SVM C (default 1, LinearSVC's). */
  c?: number
  encoding?: EvaluationEncoding
  /** Histogram normalisation (default l2). */
  norm?: HistogramNorm
  /** A running pool to use (left open); otherwise one is started for all k and closed at the end. */
  pool?: WorkerPool
  spawn?: SpawnWorker
  onProgress?: (p: EvaluationProgress) => void
  /** Called with each k's result as soon as it is ready. */
  onResult?: (r: VocabularyEvaluation) => void
  /** Called with each vocabulary's centroids (k × d) once learned or taken as given. */
  onVocabulary?: (v: { k: number; label?: string; centroids: Float32Array }) => void
  /** Called with each k's train and test histograms before the SVM (benchmarks compare classifiers on them). */
  onHistograms?: (h: EvaluationHistograms) => void
}

/** One vocabulary's histograms (rows × k, row-major) and labels, split as the SVM sees them. */
export interface EvaluationHistograms {
  k: number
  trainX: Float32Array
  trainY: Int32Array
  testX: Float32Array
  testY: Int32Array
}

/** A test image the classifier got wrong: its index in the evaluated set (and file, for a folder). */
export interface Misclassified {
  image: number
  file?: string
  label: number
  predicted: number
}

/** The outcome for one vocabulary size. */
export interface VocabularyEvaluation {
  k: number
  /** The given vocabulary's label; absent for a learned one. */
  label?: string
  accuracy: number
  /** Recall per class (NaN → null in JSON for a class with no test images). */
  perClass: number[]
  /** confusion[true][predicted] over the test images. */
  confusion: number[][]
  /** Time to learn the vocabulary (k-means++ on the driver + Lloyd on the workers); 0 for a given one. */
  vocabularySeconds: number
  /** Time to encode every image's histogram. */
  encodeSeconds: number
  /** Time to train the one-versus-rest SVM. */
  trainSeconds: number
  /** Lloyd iterations actually run (0 for a given vocabulary). */
  iterations: number
  trainImages: number
  testImages: number
  /** The first 20 misclassified test images, in image order. */
  misclassified: Misclassified[]
}

/** Everything {@link evaluateVocabularies} returns. */
export interface EvaluationResult {
  classes: string[]
  images: number
  patches: number
  d: number
  results: VocabularyEvaluation[]
}

const MAX_MISCLASSIFIED = 20

/**
 * Evaluates visual vocabularies by classification: labelled images → dense HOG → seeded
 * stratified split → for each k, a vocabulary learned on the TRAIN patches only (k-means++ then
 * Lloyd on the Map-Collective runtime, one worker pool for every k) → a histogram per image
 * (hard assignment with the ONNX kernel, or triangle) → a one-versus-rest linear SVM trained on
 * the train images and scored on the test images.
 *
 * Given vocabularies (`vocabularies`) skip the learning: their centroids encode the patches the
 * same way, then the SVM is trained and scored as for learned ones.
 *
 * Throws coded errors for bad input (`EVAL_BAD_K`, `EVAL_BAD_SPLIT`, `IMAGE_TOO_SMALL`, the
 * loaders' codes, `KMEANS_BAD_K` when k exceeds the train patches, and
 * `VOCABULARY_DIMENSION_MISMATCH` when a given vocabulary's d is not the HOG length).
 */
export async function evaluateVocabularies(opts: EvaluateOptions): Promise<EvaluationResult> {
  const trainFraction = opts.trainFraction ?? 0.5
  const iterations = opts.iterations ?? 15
  const encoding = opts.encoding ?? 'hard'
  const norm = opts.norm ?? 'l2'
  const progress = opts.onProgress ?? (() => {})
  const given = opts.vocabularies ?? []
  if ((opts.ks.length === 0 && given.length === 0) || opts.ks.some((k) => !Number.isInteger(k) || k < 1))
    throw new UsageError(
      'EVAL_BAD_K',
      `vocabulary sizes must be positive integers, got [${opts.ks.join(', ')}]`,
    )
  checkGivenVocabularies(given, opts.hog)
  if (!(trainFraction > 0 && trainFraction < 1))
    throw new UsageError('EVAL_BAD_SPLIT', `train fraction must be in (0, 1), got ${trainFraction}`)
  kernelFactory(opts.kernel ?? 'onnx') // throws KERNEL_UNKNOWN before any image is read

  progress({ stage: 'load', fraction: 0 })
  const set = await loadLabelledImages(opts.source)
  checkImageSizes(set, opts.hog.patch)
  progress({ stage: 'load', fraction: 1 })
  progress({ stage: 'features', fraction: 0 })
  const hog = denseHogSet(set.images, opts.hog)
  progress({ stage: 'features', fraction: 1 })
  const { d } = hog
  const patchImage = Int32Array.from({ length: hog.n }, (_, p) => hog.ids[3 * p]!)

  const { train, test } = stratifiedSplit(set.labels, trainFraction, createRng(opts.seed ?? 1))
  const trainPatches = selectPatches(hog.vectors, patchImage, d, imageMask(set.images.length, train))
  const classes = set.classes.length

  const workers = opts.pool?.size ?? opts.workers ?? 1
  const slots = opts.slots ?? 2
  const ownPool =
    opts.pool || opts.ks.length === 0
      ? null
      : await WorkerPool.start({ workers, spawn: opts.spawn ?? spawnLocalWorker })
  const pool = opts.pool ?? ownPool
  // The driver's own kernel encodes the histograms; it has the cores to itself between Lloyd runs.
  const encoder =
    encoding === 'hard' ? await createOrtKernel({ intraOpNumThreads: availableParallelism() }) : null
  const learnVocabulary = async (k: number) => {
    if (!pool) throw new Error('no worker pool for a learned vocabulary')
    const init = kmeansPlusPlus(trainPatches, d, k, createRng(opts.initSeed ?? 7))
    const run = await runKmeans(pool, {
      data: { kind: 'inline', points: trainPatches, d },
      init,
      maxIterations: iterations,
      tol: 0,
      slots,
      broadcast: 'chain',
      chainOrder: 'topology',
      aggregation: 'three-stage',
      seed: opts.seed ?? 1,
      kernel: opts.kernel ?? 'onnx',
      // Locally spawned workers share this machine: split its cores between every map task.
      threadsPerTask: Math.max(1, Math.floor(availableParallelism() / (workers * slots))),
      now: () => performance.now(),
      onIteration: (r) => progress({ stage: 'vocabulary', fraction: r.iteration / iterations, k }),
    })
    return run
  }
  const results: VocabularyEvaluation[] = []
  try {
    const plan: { k: number; label?: string; given: GivenVocabulary | null }[] = [
      ...opts.ks.map((k) => ({ k, given: null })),
      ...given.map((v) => ({ k: v.k, label: v.label, given: v })),
    ]
    for (const { k, label, given: vocabulary } of plan) {
      const of = label !== undefined ? { k, label } : { k }
      progress({ stage: 'vocabulary', fraction: 0, ...of })
      let started = performance.now()
      const run = vocabulary ? { centroids: vocabulary.centroids, iterations: 0 } : await learnVocabulary(k)
      progress({ stage: 'vocabulary', fraction: 1, ...of })
      opts.onVocabulary?.({ k, ...(label !== undefined ? { label } : {}), centroids: run.centroids })
      const vocabularySeconds = (performance.now() - started) / 1000

      progress({ stage: 'encode', fraction: 0, ...of })
      started = performance.now()
      const histograms = encoder
        ? encodeBagOfWords(
            (await encoder.assign(hog.vectors, run.centroids, d)).labels,
            patchImage,
            set.images.length,
            k,
            norm,
          )
        : encodeTriangle(hog.vectors, patchImage, set.images.length, run.centroids, d, norm)
      const encodeSeconds = (performance.now() - started) / 1000

      const split = {
        k,
        trainX: selectRows(histograms, k, train),
        trainY: selectLabels(set.labels, train),
        testX: selectRows(histograms, k, test),
        testY: selectLabels(set.labels, test),
      }
      opts.onHistograms?.(split)

      progress({ stage: 'train', fraction: 0, ...of })
      started = performance.now()
      const model = trainLinearSvm(split.trainX, split.trainY, k, classes, createRng(opts.seed ?? 1), {
        c: opts.c ?? 1,
      })
      const trainSeconds = (performance.now() - started) / 1000

      progress({ stage: 'predict', fraction: 0, ...of })
      const truth = split.testY
      const predicted = predictLinearSvm(model, split.testX)
      const report = classificationReport(truth, predicted, classes)
      const misclassified: Misclassified[] = []
      for (let i = 0; i < test.length && misclassified.length < MAX_MISCLASSIFIED; i++) {
        if (truth[i] === predicted[i]) continue
        const image = test[i]!
        const file = set.files[image]
        misclassified.push({ image, ...(file ? { file } : {}), label: truth[i]!, predicted: predicted[i]! })
      }
      progress({ stage: 'predict', fraction: 1, ...of })
      const result: VocabularyEvaluation = {
        k,
        ...(label !== undefined ? { label } : {}),
        ...report,
        vocabularySeconds,
        encodeSeconds,
        trainSeconds,
        iterations: run.iterations,
        trainImages: train.length,
        testImages: test.length,
        misclassified,
      }
      results.push(result)
      opts.onResult?.(result)
    }
  } finally {
    await encoder?.dispose()
    await ownPool?.close()
  }
  return { classes: set.classes, images: set.images.length, patches: hog.n, d, results }
}

/**
 * Refuses given vocabularies that are malformed or whose d is not the HOG descriptor length of
 * `hog` (`VOCABULARY_DIMENSION_MISMATCH`, naming both and, when one exists, HOG parameters that
 * give the vocabulary's d).
 */
function checkGivenVocabularies(given: readonly GivenVocabulary[], hog: DenseHogParams): void {
  if (given.length === 0) return
  for (const v of given) {
    if (!Number.isInteger(v.k) || v.k < 1 || v.centroids.length !== v.k * v.d)
      throw new UsageError(
        'EVAL_BAD_VOCABULARY',
        `vocabulary ${v.label}: ${v.centroids.length} values is not k × d = ${v.k} × ${v.d}`,
      )
    const mismatch = vocabularyDimensionError(v.label, v.d, hog)
    if (mismatch) throw mismatch
  }
}

/**
 * The `VOCABULARY_DIMENSION_MISMATCH` error when a vocabulary of dimension `d` cannot encode the
 * dense HOG patches of `hog` (naming both d's and, when one exists, HOG parameters that give
 * `d`), else null. Throws `BAD_HOG_PARAMS` when `hog` itself does not fit.
 */
export function vocabularyDimensionError(label: string, d: number, hog: DenseHogParams): UsageError | null {
  const hogD = hogLength(hog)
  if (d === hogD) return null
  const fit = hogParamsFor(d, hog)
  return new UsageError(
    'VOCABULARY_DIMENSION_MISMATCH',
    `vocabulary ${label} has d = ${d} but HOG patch ${hog.patch}, cell ${hog.cell}, bins ${hog.bins} ` +
      `gives d = ${hogD}${fit ? `; ${fit} would give d = ${d}` : ''}`,
  )
}

/** HOG parameters near `hog` (same cell, then same bins) whose descriptor length is `d`, as text. */
function hogParamsFor(d: number, hog: DenseHogParams): string | null {
  const b = hog.blockCells ?? 2
  for (const bins of [hog.bins, 8, 9, 6, 12]) {
    for (const cell of [hog.cell, 4, 8, 2]) {
      for (let c = b; c <= 64; c++) {
        const length = (c - b + 1) ** 2 * b * b * bins
        if (length === d) return `patch ${c * cell}, cell ${cell}, bins ${bins}`
        if (length > d) break
      }
    }
  }
  return null
}

/**
 * Reads a vocabulary's centroids from a `.npy` (k × d, float32 or uint8) for
 * {@link EvaluateOptions.vocabularies}.
 */
export async function readVocabularyFile(file: string, label = file): Promise<GivenVocabulary> {
  const f = await openNpy(file)
  try {
    const rows = await f.readRows(0, f.n)
    const centroids = rows instanceof Float32Array ? rows : Float32Array.from(rows)
    return { label, centroids, k: f.n, d: f.d }
  } finally {
    await f.close()
  }
}

function checkImageSizes(set: LabelledImageSet, patch: number): void {
  set.images.forEach((im, i) => {
    if (im.width < patch || im.height < patch)
      throw new UsageError(
        'IMAGE_TOO_SMALL',
        `${set.files[i] ?? `image ${i}`}: ${im.width}×${im.height} is smaller than the ${patch}-pixel patch`,
      )
  })
}

function imageMask(images: number, chosen: Int32Array): Uint8Array {
  const mask = new Uint8Array(images)
  for (const i of chosen) mask[i] = 1
  return mask
}

/** The rows of `vectors` whose image is in `mask`, in order. */
function selectPatches(
  vectors: Float32Array,
  patchImage: Int32Array,
  d: number,
  mask: Uint8Array,
): Float32Array {
  let count = 0
  for (const image of patchImage) count += mask[image]!
  const out = new Float32Array(count * d)
  let row = 0
  for (let p = 0; p < patchImage.length; p++)
    if (mask[patchImage[p]!]) out.set(vectors.subarray(p * d, (p + 1) * d), d * row++)
  return out
}

function selectRows(x: Float32Array, d: number, rows: Int32Array): Float32Array {
  const out = new Float32Array(rows.length * d)
  rows.forEach((r, i) => {
    out.set(x.subarray(r * d, (r + 1) * d), i * d)
  })
  return out
}

function selectLabels(labels: Int32Array, rows: Int32Array): Int32Array {
  return Int32Array.from(rows, (r) => labels[r]!)
}
