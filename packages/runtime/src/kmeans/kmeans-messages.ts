import {
  hnswScalarTypes,
  initMethods,
  runApproximateSearches,
  runEncodings,
  runPartials,
  runReductions,
} from '@codebook/shared'
import { z } from 'zod'
import { broadcastAlgorithms } from '../collectives/broadcast/index.ts'
import { aggregationModes } from '../collectives/regroup/regroup.ts'
import { combineKinds } from './centroid-combine.ts'

/** The control messages of the K-means application and its iteration report, as zod schemas. */

const count = z.number().int().nonnegative()

/** Where a worker's partition comes from: rows of a .npy file, or rows sent by the driver. */
export const PartitionSpec = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('npy'), file: z.string(), start: count, count }),
  z.object({ kind: z.literal('inline') }),
])
export type PartitionSpec = z.infer<typeof PartitionSpec>

/** `load`: read the partition and build the map tasks. */
export const LoadRequest = z.object({
  d: count,
  slots: z.number().int().positive(),
  /** Kernel name from the registry; ignored when the application was given a kernel factory in-process. */
  kernel: z.string().optional(),
  /**
   * Threads for each map task's kernel. The driver sets it when it spawned every worker on its
   * own machine (cores ÷ workers); a worker that joined from elsewhere gives every task all its
   * machine's cores (its tasks take turns, see `load`).
   */
  threadsPerTask: z.number().int().positive().optional(),
  /**
   * Assignment algorithm of every map task (default `lloyd`). `hamerly` / `yinyang` keep a bounds
   * state per task across iterations, using the task's kernel for dense passes when it can return
   * distance blocks (the ONNX kernel); the driver resolves `auto` before loading.
   */
  algorithm: z.enum(['lloyd', 'hamerly', 'yinyang']).optional(),
  /**
   * `approximate`: each task assigns through an HNSW index over the centroids (no bounds; the
   * driver refuses it with `hamerly` / `yinyang`) and measures recall on `recallSample` points.
   */
  assignment: z.enum(['exact', 'approximate']).optional(),
  /** Points per task in the approximate assignment's recall sample (default 256). */
  recallSample: z.number().int().nonnegative().optional(),
  /** HNSW tuning of the approximate assignment (defaults: `DEFAULT_HNSW` in accel/approximate.ts). */
  hnsw: z
    .object({
      connectivity: z.number().int().positive().optional(),
      expansionSearch: z.number().int().positive().optional(),
      scalar: z.enum(hnswScalarTypes).optional(),
      search: z.enum(runApproximateSearches).optional(),
      walkDegree: z.number().int().positive().max(1024).optional(),
      walkMinRecall: z.number().min(0).max(1).optional(),
    })
    .optional(),
  /** Number of centroids, when known: each task's kernel prepares the passes it will use at load (see `AssignKernel.prepare`). */
  k: z.number().int().positive().optional(),
  partition: PartitionSpec,
})
export type LoadRequest = z.infer<typeof LoadRequest>

/** Op ids an iteration of a `train` attempt uses: five consecutive ids from `opBase + OPS_PER_ITERATION · (i − first)`. */
export const OPS_PER_ITERATION = 5

/**
 * `train`: the workers run iterations `first` … `maxIterations` on their own (SPMD). The root
 * reads the centroids of iteration `first − 1` from `checkpointDir`, broadcasts them, and after
 * each iteration's reduce updates them and writes that iteration's checkpoint; every rank learns
 * the iteration's inertia and reassignments by an all-gather of scalars and stops by the same
 * rule. Each rank emits one {@link IterationEvent} per iteration; the root starts iteration i + 1
 * once the driver acknowledged iteration i (`acknowledge`).
 */
export const TrainRequest = z.object({
  k: z.number().int().positive(),
  d: count,
  /** Global ranks of all workers (group order), and the broadcast root as a group index. */
  ranks: z.array(count).min(1),
  root: count,
  /** First op id of this attempt (it also names the attempt in `acknowledge` and `halt`). */
  opBase: count,
  /** First iteration to run (1-based); the checkpoint of iteration `first − 1` is its start. */
  first: z.number().int().positive(),
  maxIterations: z.number().int().positive(),
  /** Relative inertia change that stops the run; 0 runs until no vector changes cluster; negative never stops early. */
  tol: z.number(),
  /** Inertia of iteration `first − 1` when known (a resumed run stops on `tol` as the undisturbed one). */
  previousInertia: z.number().nullable(),
  /** Empty-cluster splits of iteration i draw from `createRng(seed + i)`. */
  seed: z.number().int(),
  /** Where the root reads and writes `centroids-<iteration>.npy` (a directory every root candidate can reach). */
  checkpointDir: z.string(),
  broadcast: z.object({
    algorithm: z.enum(broadcastAlgorithms),
    order: z.array(count),
    ackWindowMs: z.number().positive().optional(),
  }),
  aggregation: z.enum(aggregationModes),
  /**
   * How the reduce/combine stage reduces (default `regroup`: by key block with `aggregation`,
   * then a gather at the root); a tree reduction merges each worker's tasks, then reduces whole
   * sums to the root (`collectives/reduce/`).
   */
  reduction: z.enum(runReductions).optional(),
  /** Map tasks per group member. */
  taskCounts: z.array(count),
  timeoutMs: z.number().positive().optional(),
  /** How the root's centroid broadcast is encoded (default float32); every worker decodes it after the broadcast. */
  encoding: z.enum(runEncodings).optional(),
  /**
   * Encoding of the cluster-sum blocks of the regroup, reduce and combine stages (default
   * `exact`: int32 or float64); `float32` rounds non-integer sums (docs/runtime.md, "Float32 partial sums").
   */
  partials: z.enum(runPartials).optional(),
  /**
   * What the combine gathers at the root (default `partials`: the reduced sums, exact);
   * `centroids`: each reducer's block of centroids in `encoding`, as the papers' reducers sent
   * them (regroup only; `kmeans/centroid-combine.ts`).
   */
  combine: z.enum(combineKinds).optional(),
})
export type TrainRequest = z.infer<typeof TrainRequest>

/** `acknowledge`: the driver has taken iteration `iteration`'s reports of attempt `opBase` (the root may go on). */
export const AcknowledgeRequest = z.object({ opBase: count, iteration: count })

/** `halt`: stop attempt `opBase` now (a worker was lost): its current collectives fail with `OP_ABORTED`. */
export const HaltRequest = z.object({ opBase: count })

/** The `train` reply: the last iteration run, and whether the stopping rule (not maxIterations) ended it. */
/** What `load` answers: the partition's size, the kernel its map tasks built and how its rows are held. */
export const LoadResult = z.object({
  points: count,
  tasks: count,
  /** The registry name of the map tasks' kernel (`auto` resolved by the worker: `int8` or `onnx`). */
  kernel: z.string(),
  /** The partition as stored. */
  dtype: z.enum(['float32', 'uint8']),
  /** As held in memory: uint8 only with a byte kernel (int8) under exact Lloyd, else widened once. */
  heldAs: z.enum(['float32', 'uint8']),
})
export type LoadResult = z.infer<typeof LoadResult>

export const TrainResult = z.object({ iteration: count, converged: z.boolean() })
export type TrainResult = z.infer<typeof TrainResult>

/** `init`: a run's initial centroids from its data file (the one path of the CLI and the server). */
export const InitRequest = z.object({
  /** The data `.npy`; the init runs over its seeded sample (`sampleInitRows`). */
  file: z.string(),
  method: z.enum(initMethods),
  k: z.number().int().positive(),
  seed: z.number().int(),
  /** Kernel name from the registry for the distance blocks of k-means++ and k-means|| (default `reference`). */
  kernel: z.string().optional(),
  /** Threads of that kernel (default: this machine's cores). */
  threads: z.number().int().positive().optional(),
})

/** Every message the K-means application serves. */
export const KmeansMessage = z.discriminatedUnion('type', [
  /** `init` writes the centroids to `out` (a run's checkpoint 0): they never travel. */
  InitRequest.extend({ type: z.literal('init'), out: z.string() }),
  LoadRequest.extend({ type: z.literal('load') }),
  TrainRequest.extend({ type: z.literal('train') }),
  AcknowledgeRequest.extend({ type: z.literal('acknowledge') }),
  HaltRequest.extend({ type: z.literal('halt') }),
])
export type KmeansMessage = z.infer<typeof KmeansMessage>

const ByteTotals = z.object({
  sent: z.number(),
  received: z.number(),
  intraRackSent: z.number(),
  crossRackSent: z.number(),
  intraRackReceived: z.number(),
  crossRackReceived: z.number(),
})
const StageTiming = z.object({ ms: z.number(), bytes: ByteTotals })

/** What a worker reports after an iteration (one `IterationEvent` per rank and iteration). */
export const IterateResult = z.object({
  rank: count,
  points: count,
  stages: z.object({
    broadcast: StageTiming,
    map: StageTiming,
    shuffle: StageTiming,
    reduce: StageTiming,
    combine: StageTiming,
  }),
  inertia: z.number(),
  reassigned: count,
  sparseMessages: count,
  denseMessages: count,
  /** Bytes the int32 form of integer cluster sums saved against float64 in this worker's messages. */
  partialBytesSaved: count.optional(),
  skipped: z.array(count),
  /** Point–centroid distances the map tasks evaluated (n·k per task for Lloyd; fewer once bounds prune). */
  distancesEvaluated: z.number(),
  /** Approximate assignment only: the recall sample's size and hits over this worker's tasks. */
  recall: z
    .object({
      sampled: count,
      matched: count,
      /** Σ squared distance to the approximate centroid, and to the exact nearest, over the sample. */
      approximateSq: z.number(),
      exactSq: z.number(),
    })
    .optional(),
  /** This worker process's peak resident set so far, bytes (`process.resourceUsage().maxRSS`). */
  maxRssBytes: z.number(),
  /** Approximate assignment only: the index build (0 when walking), the centroid graph's build, the search or walk, the recall check, ms. */
  approximateMs: z
    .object({ build: z.number(), graph: z.number().optional(), search: z.number(), recall: z.number() })
    .optional(),
  /** Approximate assignment only: `walk` when every map task walked the centroid graph, else `index`. */
  approximateSearch: z.enum(runApproximateSearches).optional(),
  /** The root only: empty clusters its centroid update split. */
  emptyClustersSplit: count.optional(),
})
export type IterateResult = z.infer<typeof IterateResult>

/** A `train` event: rank's report of one iteration (the root's is sent once that iteration's checkpoint is on disk). */
export const IterationEvent = z.object({ iteration: z.number().int().positive(), result: IterateResult })
export type IterationEvent = z.infer<typeof IterationEvent>
