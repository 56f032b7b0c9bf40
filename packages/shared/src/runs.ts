import { z } from 'zod'
import { EntityId } from './ids.ts'
import { JobStatus } from './jobs.ts'
import { RunLaunch, RunLauncher, SlurmLaunch } from './launchers.ts'
import { ListPageQuery, NextBefore } from './list-page.ts'
import { DisplayName, isPrintable, printableString } from './names.ts'
import {
  AggregationField,
  hnswBounds,
  hnswScalarTypes,
  runAggregations,
  runAlgorithms,
  runApproximateSearches,
  runAssignments,
  runBounds,
  runBroadcasts,
  runChainOrders,
  runDefaults,
  runEncodings,
  runPartials,
  runReductions,
} from './run-defaults.ts'

/** The five stages of a Map-Collective K-means iteration, in order. */
export const stageNames = ['broadcast', 'map', 'shuffle', 'reduce', 'combine'] as const
export const StageName = z.enum(stageNames)
export type StageName = z.infer<typeof StageName>

/** One stage of one iteration, over all workers. Bytes are payload bytes (frame headers excluded). */
export const StageReport = z.object({
  /** Critical path: the slowest worker's time in this stage, ms. */
  ms: z.number().nonnegative(),
  /** Bytes sent by all workers in this stage. */
  bytes: z.number().int().nonnegative(),
  /** Of `bytes`, those sent to a worker in the same rack. */
  intraRackBytes: z.number().int().nonnegative(),
  /** Of `bytes`, those sent to a worker in another rack. */
  crossRackBytes: z.number().int().nonnegative(),
})
export type StageReport = z.infer<typeof StageReport>

/** One stage at one worker. */
export const WorkerStageReport = z.object({
  ms: z.number().nonnegative(),
  bytesSent: z.number().int().nonnegative(),
  bytesReceived: z.number().int().nonnegative(),
  intraRackBytes: z.number().int().nonnegative(),
  crossRackBytes: z.number().int().nonnegative(),
})
export type WorkerStageReport = z.infer<typeof WorkerStageReport>

/** Per-worker detail of an iteration. */
export const WorkerIterationReport = z.object({
  rank: z.number().int().nonnegative(),
  rack: z.string(),
  /** Host name the worker reported (absent in older reports). */
  host: z.string().optional(),
  /** Vectors this worker holds. */
  points: z.number().int().nonnegative(),
  stages: z.record(StageName, WorkerStageReport),
  /** Sum of squared distances of this worker's vectors to their nearest centroid. */
  inertia: z.number().nonnegative(),
  reassigned: z.number().int().nonnegative(),
  /** Point–centroid distances this worker's map tasks evaluated (absent in older reports). */
  distancesEvaluated: z.number().nonnegative().optional(),
  /** Peak resident set of this worker's process so far, bytes (absent in older reports). */
  maxRssBytes: z.number().nonnegative().optional(),
  /**
   * Approximate assignment only: this worker's HNSW build (0 when it walked), the centroid graph's
   * build (walk mode, when rebuilt), the search or walk and the recall check, ms (its map stage's parts).
   */
  approximateMs: z
    .object({
      build: z.number().nonnegative(),
      graph: z.number().nonnegative().optional(),
      search: z.number().nonnegative(),
      recall: z.number().nonnegative(),
    })
    .optional(),
  /** Approximate assignment only: `walk` (a greedy walk of the centroid graph from each point's previous centroid) or `index` (an HNSW search). */
  approximateSearch: z.enum(runApproximateSearches).optional(),
})
export type WorkerIterationReport = z.infer<typeof WorkerIterationReport>

/** The report of one K-means iteration on the runtime, as stored and streamed by the server. */
export const IterationReport = z.object({
  /** 1-based iteration number. */
  iteration: z.number().int().positive(),
  stages: z.record(StageName, StageReport),
  /** Inertia of the assignment to this iteration's input centroids. */
  inertia: z.number().nonnegative(),
  /** Vectors whose nearest centroid changed (all of them in the first iteration). */
  reassigned: z.number().int().nonnegative(),
  /** Empty clusters replaced by a perturbed copy of the largest cluster's centroid. */
  emptyClustersSplit: z.number().int().nonnegative(),
  /** Intermediate key-value messages by encoding (chosen automatically: the smaller form). */
  encoding: z.object({
    sparseMessages: z.number().int().nonnegative(),
    denseMessages: z.number().int().nonnegative(),
  }),
  /** Times this iteration was re-run from the checkpoint after a worker was lost or a broadcast failed. */
  restarts: z.number().int().nonnegative(),
  workers: z.array(WorkerIterationReport),
  /**
   * Point–centroid distances evaluated by all map tasks ÷ (n·k): 1 for Lloyd; below 1 once
   * Hamerly / Yinyang bounds prune (dense passes count every entry, so ≥ 1 on the first iteration).
   */
  distanceFraction: z.number().nonnegative().optional(),
  /**
   * The reduction of the reduce/combine stage (absent in older reports: `regroup`). With a tree
   * reduction, `stages.reduce` is the reduction's time and `stages.combine` moving its result to the root.
   */
  reduction: z.enum(runReductions).optional(),
  /** Broadcast payload bytes the centroid encoding saved against float32, over all receivers. */
  broadcastBytesSaved: z.number().int().optional(),
  /**
   * Regroup/reduce bytes the exact int32 form of integer cluster sums saved against float64 (integer
   * data such as uint8 HOG; 0 for real-valued data), over all workers.
   */
  partialBytesSaved: z.number().int().nonnegative().optional(),
  /** How the map tasks assigned (absent in older reports: exact). */
  assignment: z.enum(runAssignments).optional(),
  /**
   * Approximate assignment only: the fraction of the recall sample (a fixed set of points per map
   * task) whose approximate centroid was an exact nearest one for this iteration's centroids.
   */
  assignmentRecall: z.number().min(0).max(1).optional(),
  /**
   * Approximate assignment only: on the same sample, Σ‖x − approximate centroid‖² ÷ Σ‖x − exact
   * nearest‖² − 1 for this iteration's centroids (0 = the exact assignment's inertia).
   */
  assignmentInertiaGap: z.number().nonnegative().optional(),
})
export type IterationReport = z.infer<typeof IterationReport>

/**
 * Seeded init methods of a run and of `codebook kmeans --init`: `kmeans++` (Arthur &
 * Vassilvitskii, k sequential passes), `kmeans-parallel` (k-means||, Bahmani et al.: a few
 * oversampling passes on the kernel, then k-means++ over the weighted candidates; far faster at
 * large k) and `random` (k distinct rows). All run over the runtime's ≤ 100k-row init sample.
 */
export const initMethods = ['kmeans++', 'kmeans-parallel', 'random'] as const
export const InitMethod = z.enum(initMethods)
export type InitMethod = z.infer<typeof InitMethod>
/** The init of the CLI and the server when none is given (k-means++, so old seeds keep their centroids). */
export const DEFAULT_INIT_METHOD: InitMethod = 'kmeans++'

/** HNSW settings of an approximate run; each absent one takes the runtime's default (`docs/runtime.md`). */
export const RunHnsw = z.strictObject({
  /** Graph degree of the index (`--hnsw-connectivity`). */
  connectivity: z.number().int().min(2).max(hnswBounds.connectivity).optional(),
  /** Candidates kept while searching (`--hnsw-expansion`). */
  expansion: z.number().int().positive().max(hnswBounds.expansion).optional(),
  /** Scalar type of the index (`--hnsw-scalar`). */
  scalar: z.enum(hnswScalarTypes).optional(),
  /** Neighbours per centroid of the walk's graph (`--walk-degree`). */
  walkDegree: z.number().int().positive().max(hnswBounds.walkDegree).optional(),
  /** Recall floor of the walk (`--walk-min-recall`). */
  walkMinRecall: z.number().min(0).max(1).optional(),
  /** Points per map task in the recall check (`--recall-sample`). */
  recallSample: z.number().int().nonnegative().max(hnswBounds.recallSample).optional(),
})
export type RunHnsw = z.infer<typeof RunHnsw>

/**
 * Body of `POST /api/runs`: the `codebook kmeans` flags in camelCase (same defaults, except the
 * kernel: the server defaults to `onnx`). The init method is seeded by `seed`.
 */
export const CreateRun = z.object({
  datasetId: EntityId,
  k: z.number().int().positive(),
  maxIterations: z.number().int().positive().max(runBounds.maxIterations),
  /** Worker processes the server spawns for this run. */
  workers: z.number().int().positive().max(runBounds.workers),
  /** Relative inertia change that stops the run; 0 runs until no vector changes cluster. */
  tol: z.number().nonnegative().default(runDefaults.tol),
  /** Map tasks per worker. */
  slots: z.number().int().positive().max(runBounds.slots).default(runDefaults.slots),
  broadcast: z.enum(runBroadcasts).default(runDefaults.broadcast),
  chainOrder: z.enum(runChainOrders).default(runDefaults.chainOrder),
  /** Regroup (see {@link runAggregations}); the old name `local` is read as `three-stage`. */
  aggregation: AggregationField.default(runDefaults.aggregation),
  /** How the reduce/combine stage reduces (see {@link runReductions}); `regroup` uses `aggregation`. */
  reduction: z.enum(runReductions).default(runDefaults.reduction),
  algorithm: z.enum(runAlgorithms).default(runDefaults.algorithm),
  /** `approximate`: HNSW assignment (no bounds: with `hamerly` / `yinyang` the run fails `KMEANS_ASSIGNMENT_CONFLICT`). */
  assignment: z.enum(runAssignments).default(runDefaults.assignment),
  /** With `approximate`: search an index every iteration or walk the centroid graph (see {@link runApproximateSearches}). */
  approximateSearch: z.enum(runApproximateSearches).default(runDefaults.approximateSearch),
  /** Encoding of the partial sums on the wire (see {@link runPartials}). */
  partials: z.enum(runPartials).default(runDefaults.partials),
  /** Encoding of the centroid broadcast (see {@link runEncodings}); `codebook kmeans --encoding`. */
  encoding: z.enum(runEncodings).default(runDefaults.encoding),
  /** With `approximate`: the HNSW index's and the walk's settings (the CLI's `--hnsw-*`, `--walk-*`, `--recall-sample`). */
  hnsw: RunHnsw.optional(),
  /** Assignment kernel name of the runtime's kernel registry (`auto`: `int8` for uint8 data under exact Lloyd, else `onnx`; `reference`, …; the server lists them at `/api/limits`). */
  kernel: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .default(runDefaults.kernel),
  seed: z.number().int().nonnegative().default(runDefaults.seed),
  /** How the initial centroids are chosen (see {@link initMethods}); computed on the run's first worker. */
  init: InitMethod.default(DEFAULT_INIT_METHOD),
  /**
   * Topology the workers run as: worker i takes the i-th node's rack, which orders the chain
   * (`chainOrder: 'topology'`) and splits bytes into intra- and cross-rack. Workers are still
   * local processes. Without it every worker is on one rack.
   */
  topologyId: EntityId.optional(),
  /**
   * Where each worker runs, from a placement plan: worker i takes the rack of the topology node
   * named `mapping[i]` instead of the i-th node's (so chain order and cross-rack bytes follow the
   * plan). One name per worker; needs `topologyId` and a `local` launcher; the server answers 400
   * `MAPPING_UNKNOWN_NODE` for a name the topology lacks.
   */
  mapping: z.array(z.string().min(1)).max(runBounds.workers).optional(),
  /** The planner that produced `mapping` (shown with the run; informational). */
  mappingPlanner: z.string().min(1).max(64).optional(),
  /** Version of `topologyId` to use; the server fills in the latest when absent, so a run records what it used. */
  topologyVersion: z.number().int().positive().optional(),
  /** Where the workers run (`runLaunchers` in launchers.ts); runs stored before launchers existed are `local`. */
  launcher: RunLauncher.default('local'),
  /** `sbatch` options of a `slurm` run. */
  slurm: SlurmLaunch.optional(),
})
/** What a client sends (defaults optional). */
export type CreateRunInput = z.input<typeof CreateRun>
/**
 * The parameters as stored and served (defaults applied, old names already read). Responses are
 * encoded through their schema, and `CreateRun`'s one-way alias transform cannot be encoded.
 */
export const RunParams = CreateRun.extend({
  aggregation: z.enum(runAggregations).default(runDefaults.aggregation),
})
export type RunParams = z.infer<typeof RunParams>

/**
 * What a run's K-means does, apart from its data, init and placement: the fields the runtime's
 * `kmeansOptionsOf` turns into `runKmeans` options. A server run's params hold it; `codebook
 * kmeans` parses its flags with it, so both take the same bounds and defaults from here.
 */
export const KmeansSpec = RunParams.pick({
  maxIterations: true,
  tol: true,
  slots: true,
  broadcast: true,
  chainOrder: true,
  aggregation: true,
  reduction: true,
  algorithm: true,
  assignment: true,
  approximateSearch: true,
  hnsw: true,
  partials: true,
  encoding: true,
  kernel: true,
  seed: true,
})
export type KmeansSpec = z.infer<typeof KmeansSpec>

/** Bounds of a run's research-log labels (`PATCH /api/runs/:id`). */
export const runLabelBounds = { notesChars: 10_000, tags: 32, tagChars: 40 } as const

/** One tag of a run: trimmed, 1–40 printable characters. */
export const RunTag = z
  .string()
  .trim()
  .min(1, 'a tag must not be empty')
  .max(runLabelBounds.tagChars, `a tag must be at most ${runLabelBounds.tagChars} characters`)
  .refine(isPrintable, 'a tag must be printable: no control characters such as NUL or newline')

/**
 * Body of `PATCH /api/runs/:id`: any of the run's research-log labels. `name` follows the shared
 * {@link DisplayName} rules (null clears it); `tags` replaces the list (the server drops duplicates, keeping the order).
 */
export const UpdateRun = z
  .strictObject({
    name: DisplayName.nullable().optional(),
    notes: z
      .string()
      .max(runLabelBounds.notesChars, `notes must be at most ${runLabelBounds.notesChars} characters`)
      .refine(
        (text) => isPrintable(text.replace(/[\t\n\r]/g, ' ')),
        'notes: no control characters but tab and newline',
      )
      .optional(),
    tags: z.array(RunTag).max(runLabelBounds.tags, `at most ${runLabelBounds.tags} tags`).optional(),
  })
  .refine((v) => v.name !== undefined || v.notes !== undefined || v.tags !== undefined, {
    message: 'give at least one of name, notes, tags',
  })
export type UpdateRun = z.infer<typeof UpdateRun>

/**
 * Body of `POST /api/runs`: a {@link CreateRun}, or `cloneOf` (a run's id) and any fields to
 * change: the server fills the rest from that run's stored params before checking the body.
 */
export const CreateRunRequest = CreateRun.extend({ cloneOf: EntityId.optional() })
export type CreateRunRequest = z.input<typeof CreateRunRequest>

/** A K-means run as stored and served by `/api/runs`. */
export const Run = z.object({
  id: z.string(),
  datasetId: z.string(),
  status: JobStatus,
  params: RunParams,
  /** The name a user gave it (null: none; pages show its dataset and k instead). */
  name: z.string().nullable().optional(),
  /** Free-text notes (≤ 10,000 characters; newlines allowed). */
  notes: z.string().optional(),
  /** Tags (≤ 32, each 1–40 printable characters). */
  tags: z.array(z.string()).optional(),
  /** Iterations finished so far (0 before the first one). */
  iteration: z.number().int().nonnegative(),
  /** Inertia reported by the last finished iteration; null before the first one. */
  inertia: z.number().nonnegative().nullable(),
  /** The learned vocabulary, once the run succeeded. */
  vocabularyId: z.string().nullable().optional(),
  /** Iteration whose centroids the run's checkpoint holds (0: none); a resume continues from it. */
  checkpointIteration: z.number().int().nonnegative().optional(),
  /** How this run's workers were started and where they are (null before it first ran). */
  launch: RunLaunch.nullable().optional(),
  error: z.object({ code: z.string(), message: z.string() }).nullable().optional(),
  createdAt: z.string(),
  startedAt: z.string().nullable().optional(),
  finishedAt: z.string().nullable().optional(),
})
export type Run = z.infer<typeof Run>

/** `GET /api/runs?limit&before`: one page, newest first (see {@link ListPageQuery}). */
export const RunList = z.object({ runs: z.array(Run), nextBefore: NextBefore })
export type RunList = z.infer<typeof RunList>

/**
 * Query of `GET /api/runs`: a page ({@link ListPageQuery}) of the runs matching every filter
 * given (AND). `q` matches, case-insensitively, the run's id, name, notes, tags or its dataset's name.
 */
export const RunListQuery = ListPageQuery.extend({
  tag: RunTag.optional().describe('runs carrying this tag'),
  datasetId: EntityId.optional().describe('runs of this dataset'),
  status: JobStatus.optional().describe('runs in this status'),
  k: z.coerce.number().int().positive().optional().describe('runs with this k'),
  q: printableString(200)
    .trim()
    .min(1)
    .optional()
    .describe('text in the id, name, notes, tags or dataset name'),
  createdAfter: z.iso.datetime({ offset: true }).optional().describe('runs created at or after this instant'),
  createdBefore: z.iso.datetime({ offset: true }).optional().describe('runs created before this instant'),
})
export type RunListQuery = z.infer<typeof RunListQuery>

/** Formats of `GET /api/runs/:id/iterations`. */
export const iterationFormats = ['json', 'csv'] as const
export const IterationsQuery = z.object({ format: z.enum(iterationFormats).default('json') })

/** One iteration of a run as `GET /api/runs/:id/iterations` lists it (the last report of each number). */
export const IterationRow = z.object({
  iteration: z.number().int().positive(),
  /** Full precision (the float64 the runtime reported). */
  inertia: z.number(),
  reassigned: z.number().int().nonnegative(),
  /** Per stage: critical-path ms and payload bytes. */
  stages: z.record(StageName, z.object({ ms: z.number(), bytes: z.number() })),
})
export type IterationRow = z.infer<typeof IterationRow>
/** The `json` answer of `GET /api/runs/:id/iterations`. */
export const RunIterations = z.object({ runId: z.string(), iterations: z.array(IterationRow) })
export type RunIterations = z.infer<typeof RunIterations>

/** `DELETE /api/runs/:id?vocabulary=keep|delete`: what becomes of the run's vocabulary (default keep). */
export const DeleteRunQuery = z.object({ vocabulary: z.enum(['keep', 'delete']).default('keep') })
export type DeleteRunQuery = z.infer<typeof DeleteRunQuery>

/**
 * `run:changed` (server → every client): a run was created, changed state, was relabelled or
 * deleted, wherever that happened (API, CLI, another tab). Lists refetch on it.
 */
export const RunChanged = z.object({ id: z.string(), change: z.enum(['state', 'labels', 'deleted']) })
export type RunChanged = z.infer<typeof RunChanged>

/** `data` of a `log` event: one line of what the run did (loading, init, retries, worker loss). */
export const RunLogData = z.object({
  level: z.enum(['info', 'warn', 'error']),
  message: z.string(),
})
export type RunLogData = z.infer<typeof RunLogData>

/** Phases a run goes through before and after its iterations. */
export const runPhases = ['loading', 'init', 'iterating', 'saving'] as const

/**
 * `data` of a `progress` event: the phase and how far it is (0 … 1). During `iterating`,
 * `fraction` is iteration / maxIterations and `etaSeconds` extrapolates the mean iteration time.
 */
export const RunProgressData = z.object({
  phase: z.enum(runPhases),
  fraction: z.number().min(0).max(1),
  etaSeconds: z.number().nonnegative().nullable().optional(),
  message: z.string().optional(),
})
export type RunProgressData = z.infer<typeof RunProgressData>

/**
 * The schema of a run event's `data` by its `type` (the run's part of the job feed): `state` is
 * the whole run record (on every status or launch change), `iteration` an {@link IterationReport},
 * `log` {@link RunLogData}, `progress` {@link RunProgressData}.
 */
export const runEventData = {
  state: Run,
  iteration: IterationReport,
  log: RunLogData,
  progress: RunProgressData,
} as const satisfies Record<string, z.ZodType>
export type RunEventType = keyof typeof runEventData

/** A learned vocabulary (the centroids of a succeeded run), as listed by `GET /api/vocabularies`. */
export const Vocabulary = z.object({
  id: z.string(),
  runId: z.string(),
  /** Centroids (rows). */
  k: z.number().int().positive(),
  /** Dimension of each centroid. */
  d: z.number().int().positive(),
  createdAt: z.string(),
})
export type Vocabulary = z.infer<typeof Vocabulary>

/**
 * A vocabulary as `GET /api/vocabularies` and `GET /api/vocabularies/:id` answer it: the record with
 * the run and dataset it came from and what it takes on disk.
 */
export const VocabularySummary = Vocabulary.extend({
  datasetId: z.string(),
  /** The dataset's name; null once the dataset was deleted (runs keep its id). */
  datasetName: z.string().nullable(),
  datasetExists: z.boolean(),
  /** The run's last inertia (sum of squared distances to the nearest centroid). */
  inertia: z.number().nullable(),
  /** Bytes of the centroids file; null when the file is missing. */
  sizeBytes: z.number().int().nonnegative().nullable(),
  /** Bytes of the cached assignments (npy + csv); null until they were first downloaded. */
  assignmentsBytes: z.number().int().nonnegative().nullable(),
  /**
   * Whether its dataset named its pictures (HOG ids as names): `GET /api/datasets/:datasetId/picture-names`
   * then gives line i = the name of the assignments' picture index i. False once the dataset is gone.
   */
  pictureNames: z.boolean(),
})
export type VocabularySummary = z.infer<typeof VocabularySummary>

/** `GET /api/vocabularies`: newest first. */
export const VocabularyList = z.object({ vocabularies: z.array(VocabularySummary) })
export type VocabularyList = z.infer<typeof VocabularyList>

/**
 * Formats of `GET /api/vocabularies/:id/assignments`, one row per dataset vector in row order:
 * `npy` is a structured array of shape (n,) with fields `row` (<i8), `word` (<i4, the nearest
 * centroid, ties to the lowest index), `distance_sq` (<f8) and, when the dataset has ids,
 * `picture`, `picture_row`, `picture_col` (<i4); `csv` has the same columns with a header line
 * (its `picture` is the name when the dataset's picture ids were names; the npy keeps the index).
 */
export const assignmentFormats = ['npy', 'csv'] as const
export const AssignmentFormat = z.enum(assignmentFormats)
export type AssignmentFormat = z.infer<typeof AssignmentFormat>

/**
 * Formats of `GET /api/vocabularies/:id/export`: `npy` (k × d float32), `fvecs` (per centroid: int32 d,
 * then d float32, little-endian), `csv` (one line of d values per centroid), `json` ({@link VocabularyExportJson}).
 */
export const vocabularyExportFormats = ['npy', 'fvecs', 'csv', 'json'] as const
export const VocabularyExportFormat = z.enum(vocabularyExportFormats)
export type VocabularyExportFormat = z.infer<typeof VocabularyExportFormat>

/** The `json` export: the centroids with the run that learned them and its inertia per iteration. */
export const VocabularyExportJson = z.object({
  vocabulary: z.object({ id: z.string(), k: z.number().int(), d: z.number().int() }),
  run: z.object({ id: z.string(), params: RunParams, datasetId: z.string() }),
  /** Inertia of iteration 1, 2, … (from the run's iteration events). */
  inertiaHistory: z.array(z.number()),
  centroids: z.array(z.array(z.number())),
})
export type VocabularyExportJson = z.infer<typeof VocabularyExportJson>
