import { z } from 'zod'
import { EntityId } from './ids.ts'
import { JobStatus, LastEventSeq } from './jobs.ts'
import { DisplayName } from './names.ts'

const CodedError = z.object({ code: z.string(), message: z.string() })

/** How an image set was given: one grid image cut into cells, or a zip with one folder per class. */
export const imageSetKinds = ['grid', 'zip'] as const
export const ImageSetKind = z.enum(imageSetKinds)
export type ImageSetKind = z.infer<typeof ImageSetKind>

export const ImageSetStatus = z.enum(['processing', 'ready', 'failed'])
export type ImageSetStatus = z.infer<typeof ImageSetStatus>

/** A stored labelled image set as the API returns it. `classes` and `count` are null until read. */
export const ImageSet = z.object({
  id: z.string(),
  name: z.string(),
  kind: ImageSetKind,
  status: ImageSetStatus,
  /** Class names in label order (a grid's classes are "0", "1", …; a zip's are its folder names). */
  classes: z.array(z.string()).nullable(),
  /** Number of images. */
  count: z.number().int().nullable(),
  /** For a grid: the cell size and grid rows per class; null for a zip. */
  grid: z
    .object({
      cellWidth: z.number().int().positive(),
      cellHeight: z.number().int().positive(),
      rowsPerClass: z.number().int().positive(),
    })
    .nullable(),
  error: CodedError.nullable(),
  createdAt: z.string(),
})
export type ImageSet = z.infer<typeof ImageSet>

export const ImageSetList = z.object({ imageSets: z.array(ImageSet) })
export type ImageSetList = z.infer<typeof ImageSetList>

/**
 * Query of `PUT /api/image-sets?name=…&kind=grid&grid=20x20&rowsPerClass=5` or `?name=…&kind=zip`,
 * the file as the raw body (`curl -T`). `grid` and `rowsPerClass` are required for a grid.
 */
export const CreateImageSetQuery = z.object({
  name: DisplayName,
  kind: ImageSetKind,
  /** Cell size `WxH` in pixels (grid only). */
  grid: z
    .string()
    .regex(/^\d+x\d+$/i, 'grid must be WxH in pixels, e.g. 20x20')
    .optional(),
  rowsPerClass: z.coerce.number().int().positive().optional(),
})
export type CreateImageSetQuery = z.infer<typeof CreateImageSetQuery>

/** Most stored vocabularies one evaluation may use (`vocabularyIds`). */
export const MAX_EVALUATION_VOCABULARIES = 8

const EvaluationFields = z.object({
  imageSetId: EntityId,
  /** Vocabulary sizes to learn, evaluated in this order (may be empty when `vocabularyIds` is not). */
  k: z.array(z.number().int().min(1).max(4096)).max(16).default([]),
  /** Stored vocabularies (`GET /api/vocabularies`) to evaluate as they are, after the learned k. */
  vocabularyIds: z.array(EntityId).max(MAX_EVALUATION_VOCABULARIES).default([]),
  patch: z.number().int().min(4).max(256).default(8),
  stride: z.number().int().min(1).max(256).default(4),
  cell: z.number().int().min(1).max(64).default(4),
  bins: z.number().int().min(2).max(36).default(8),
  /** Share of each class used for training. */
  split: z.number().gt(0).lt(1).default(0.5),
  /** Seeds the stratified split, Lloyd's empty-cluster splits and the SVM (k-means++ uses the runtime's init seed 7, as the CLI). */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(1),
  /** Use only the first n images of every class (quick runs); omit for all. */
  limitPerClass: z.number().int().min(2).optional(),
  name: DisplayName.optional(),
})

/**
 * Body of `POST /api/evaluations`: the image set, the vocabulary sizes to learn and/or stored
 * vocabularies to use (at least one of them), and the dense-HOG / split parameters.
 */
export const CreateEvaluation = EvaluationFields.refine((e) => e.k.length + e.vocabularyIds.length > 0, {
  message: 'give at least one vocabulary size k or one vocabularyId',
  path: ['k'],
}).refine((e) => new Set(e.vocabularyIds).size === e.vocabularyIds.length, {
  message: 'vocabularyIds must be distinct',
  path: ['vocabularyIds'],
})
export type CreateEvaluationInput = z.input<typeof CreateEvaluation>
export type CreateEvaluation = z.infer<typeof CreateEvaluation>

/** The parameters an evaluation ran with (defaults filled in; `vocabularyIds` [] for older records). */
export const EvaluationParams = EvaluationFields.omit({ name: true }).extend({
  limitPerClass: z.number().int().nullable(),
})
export type EvaluationParams = z.infer<typeof EvaluationParams>

/** A test image the classifier got wrong; `index` addresses `GET /api/image-sets/:id/images/:index.png`. */
export const MisclassifiedImage = z.object({
  index: z.number().int().nonnegative(),
  trueLabel: z.number().int().nonnegative(),
  predicted: z.number().int().nonnegative(),
})
export type MisclassifiedImage = z.infer<typeof MisclassifiedImage>

/** The outcome for one vocabulary: a learned k, or a stored vocabulary (`vocabularyId`). */
export const EvaluationKResult = z.object({
  k: z.number().int(),
  /** The stored vocabulary evaluated; absent for a vocabulary the evaluation learned. */
  vocabularyId: z.string().optional(),
  /** Test accuracy in [0, 1]. */
  accuracy: z.number(),
  /** Recall per class in label order; null for a class with no test image. */
  perClass: z.array(z.number().nullable()),
  /** confusion[true][predicted], counts over the test images. */
  confusion: z.array(z.array(z.number().int())),
  /** At most 24 misclassified test images, in image order. */
  misclassified: z.array(MisclassifiedImage),
  trainImages: z.number().int(),
  testImages: z.number().int(),
  /** Wall time of the vocabulary (k-means), histogram encoding and SVM training, seconds. */
  seconds: z.object({ vocabulary: z.number(), encode: z.number(), train: z.number() }),
})
export type EvaluationKResult = z.infer<typeof EvaluationKResult>

/** An evaluation as the API returns it. */
export const Evaluation = z.object({
  id: z.string(),
  name: z.string(),
  status: JobStatus,
  params: EvaluationParams,
  /** Name of the image set at creation, and its class names in label order (for axes and legends). */
  imageSetName: z.string(),
  classes: z.array(z.string()),
  /** 0 … 1 over the whole evaluation. */
  progress: z.number().min(0).max(1),
  /** One entry per finished vocabulary: `params.k` in order, then `params.vocabularyIds`. */
  results: z.array(EvaluationKResult),
  error: CodedError.nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  lastEventSeq: LastEventSeq,
})
export type Evaluation = z.infer<typeof Evaluation>

export const EvaluationList = z.object({ evaluations: z.array(Evaluation) })
export type EvaluationList = z.infer<typeof EvaluationList>

export const evaluationPhases = ['hog', 'kmeans', 'encode', 'train', 'test'] as const
export const EvaluationPhase = z.enum(evaluationPhases)
export type EvaluationPhase = z.infer<typeof EvaluationPhase>

/** Data of a `progress` event. */
export const EvaluationProgress = z.object({
  phase: EvaluationPhase,
  /** The vocabulary size being worked on (absent for `hog`). */
  k: z.number().int().optional(),
  /** 0 … 1 over the whole evaluation. */
  fraction: z.number().min(0).max(1),
  message: z.string(),
})
export type EvaluationProgress = z.infer<typeof EvaluationProgress>

/**
 * The schema of an evaluation event's `data` by its `type` (the evaluation's part of the job
 * feed): `state` is the whole {@link Evaluation} (on every status change), `progress`
 * {@link EvaluationProgress} (throttled), `result` one {@link EvaluationKResult}.
 */
export const evaluationEventData = {
  state: Evaluation,
  progress: EvaluationProgress,
  result: EvaluationKResult,
} as const satisfies Record<string, z.ZodType>
