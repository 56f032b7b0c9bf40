import { z } from 'zod'
import { JobStatus, LastEventSeq } from './jobs.ts'
import { DisplayName } from './names.ts'

const CodedError = z.object({ code: z.string(), message: z.string() })

/** The four non-clairvoyant reductions the study plays (the runtime's `reductionAlgorithms`). */
export const studyAlgorithms = ['binomial', 'fibonacci', 'tree-dyn', 'noncommut-tree-dyn'] as const
export const StudyAlgorithm = z.enum(studyAlgorithms)
export type StudyAlgorithm = z.infer<typeof StudyAlgorithm>

/**
 * What a study plays: `reductions` (Figure 3: mean and 10–90 % band per algorithm and CV),
 * `grid` (Figure 4: CV × μc/μd maps) or `markov` (Section 3: Tree-dyn beside its closed forms).
 */
export const studyKinds = ['reductions', 'grid', 'markov'] as const
export const StudyKind = z.enum(studyKinds)
export type StudyKind = z.infer<typeof StudyKind>

/** Bounds of a study request: enough for the paper's figures, small enough for one server. */
export const STUDY_LIMITS = {
  maxProcesses: 1024,
  maxRuns: 100_000,
  /** Runs per Figure 4 cell (221 cells). */
  maxGridRuns: 10_000,
  maxCvs: 16,
  maxComputeMeans: 8,
  /** CV values are in (0, maxCv]; μc in [0, maxComputeMean]. */
  maxCv: 100,
  maxComputeMean: 1000,
} as const

/** The paper's Figure 3 CVs. */
export const FIGURE3_CVS = [0.01, 0.1, 0.3, 1, 3, 10]

const processes = z.number().int().min(2).max(STUDY_LIMITS.maxProcesses).default(64)
const seed = z
  .number()
  .int()
  .min(0)
  .max(2 ** 32 - 1)
  .default(1)
const name = DisplayName.optional()

/** `POST /api/studies` of kind `reductions`: `codebook study reductions --json`. */
export const CreateReductionsStudy = z.object({
  kind: z.literal('reductions'),
  name,
  n: processes,
  cv: z
    .array(z.number().positive().max(STUDY_LIMITS.maxCv))
    .min(1)
    .max(STUDY_LIMITS.maxCvs)
    .default(FIGURE3_CVS),
  muC: z
    .array(z.number().min(0).max(STUDY_LIMITS.maxComputeMean))
    .min(1)
    .max(STUDY_LIMITS.maxComputeMeans)
    .default([0]),
  runs: z.number().int().min(1).max(STUDY_LIMITS.maxRuns).default(10_000),
  seed,
})

/** `POST /api/studies` of kind `grid`: `codebook study reductions --grid --json` (the paper's Figure 4 axes). */
export const CreateGridStudy = z.object({
  kind: z.literal('grid'),
  name,
  n: processes,
  runs: z.number().int().min(1).max(STUDY_LIMITS.maxGridRuns).default(1000),
  seed,
})

/** `POST /api/studies` of kind `markov`: `codebook study reductions --markov --json`. */
export const CreateMarkovStudy = z.object({
  kind: z.literal('markov'),
  name,
  n: processes,
  runs: z.number().int().min(1).max(STUDY_LIMITS.maxRuns).default(100_000),
  seed,
})

/** Body of `POST /api/studies`. */
export const CreateStudy = z.discriminatedUnion('kind', [
  CreateReductionsStudy,
  CreateGridStudy,
  CreateMarkovStudy,
])
export type CreateStudyInput = z.input<typeof CreateStudy>
export type CreateStudy = z.infer<typeof CreateStudy>

/** One line of `codebook study reductions --json`: one (algorithm, cv, μc) of Figure 3. */
export const StudyRow = z.object({
  algorithm: StudyAlgorithm,
  n: z.number().int(),
  cv: z.number(),
  muC: z.number(),
  runs: z.number().int(),
  mean: z.number(),
  q10: z.number(),
  q90: z.number(),
})
export type StudyRow = z.infer<typeof StudyRow>

/**
 * One Figure 4 cell: each algorithm's mean, Fibonacci-stat / Tree-dyn (Figure 4(a)) and the best
 * of all four algorithms. The paper's Figure 4(b), the best of the three that accept a
 * non-commutative ⊕ (Tree-dyn left out), is not stored: it is derived from `means`.
 */
export const GridCell = z.object({
  n: z.number().int(),
  cv: z.number(),
  /** μc / μd (μd = 1). */
  muC: z.number(),
  runs: z.number().int(),
  /** Every algorithm's mean makespan (an enum-keyed record: all four keys are required). */
  means: z.record(StudyAlgorithm, z.number()),
  fibonacciOverTreeDyn: z.number(),
  best: StudyAlgorithm,
})
export type GridCell = z.infer<typeof GridCell>

/** Section 3: Tree-dyn's simulated moments beside the derived and the paper's closed forms. */
export const MarkovResult = z.object({
  n: z.number().int(),
  runs: z.number().int(),
  simulatedMean: z.number(),
  simulatedVariance: z.number(),
  formulaMean: z.number(),
  formulaVariance: z.number(),
  /** The paper's printed mean, for even n only. */
  paperFormulaMean: z.number().nullable(),
})
export type MarkovResult = z.infer<typeof MarkovResult>

const StudyBase = {
  id: z.string(),
  name: z.string(),
  status: JobStatus,
  /** 0 … 1 over the whole study. */
  progress: z.number().min(0).max(1),
  error: CodedError.nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  lastEventSeq: LastEventSeq,
}

/**
 * A stored study: its parameters (defaults filled in) and the results found so far, in play
 * order (`reductions`: 4 rows per (cv, μc) cell; `grid`: one cell per (cv, μc); `markov`: one).
 */
export const Study = z.discriminatedUnion('kind', [
  z.object({
    ...StudyBase,
    kind: z.literal('reductions'),
    params: CreateReductionsStudy.omit({ name: true, kind: true }),
    results: z.array(StudyRow),
  }),
  z.object({
    ...StudyBase,
    kind: z.literal('grid'),
    params: CreateGridStudy.omit({ name: true, kind: true }).extend({
      cvs: z.array(z.number()),
      computeRatios: z.array(z.number()),
    }),
    results: z.array(GridCell),
  }),
  z.object({
    ...StudyBase,
    kind: z.literal('markov'),
    params: CreateMarkovStudy.omit({ name: true, kind: true }),
    results: z.array(MarkovResult),
  }),
])
export type Study = z.infer<typeof Study>
export type StudyParams = Study['params']

export const StudyList = z.object({ studies: z.array(Study) })
export type StudyList = z.infer<typeof StudyList>

/** Data of a study `progress` event. */
export const StudyProgress = z.object({
  /** 0 … 1 over the whole study. */
  fraction: z.number().min(0).max(1),
  message: z.string(),
})
export type StudyProgress = z.infer<typeof StudyProgress>

/** Results appended by one finished cell (rows of the study's own kind). */
export const StudyResults = z.union([z.array(StudyRow), z.array(GridCell), z.array(MarkovResult)])
export type StudyResults = z.infer<typeof StudyResults>

/**
 * The schema of a study event's `data` by its `type` (the study's part of the job feed): `state`
 * is the whole {@link Study} (on every status change), `progress` {@link StudyProgress}
 * (throttled), `result` the rows one cell added.
 */
export const studyEventData = {
  state: Study,
  progress: StudyProgress,
  result: StudyResults,
} as const satisfies Record<string, z.ZodType>
