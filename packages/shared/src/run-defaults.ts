import { z } from 'zod'

/**
 * Choices and defaults of a K-means run, shared by `POST /api/runs` (`CreateRun`), the web's
 * new-run form and the CLI's `codebook kmeans` flags, so the three cannot drift apart.
 */

/** Centroid broadcast algorithms of the runtime. */
export const runBroadcasts = ['chain', 'simple', 'mst', 'bucket'] as const
/** Chain orders (`topology` follows the racks of the run's topology). */
export const runChainOrders = ['topology', 'rank', 'random'] as const
/**
 * Shuffle/reduce aggregation modes, by the Map-Collective paper's names: `three-stage` = local
 * merge → all-to-all by centroid block → gather; `ring` = ring reduce-scatter → gather. The old
 * name `local` (= `three-stage`) is still accepted on input ({@link legacyAggregationAliases}).
 */
export const runAggregations = ['three-stage', 'direct', 'ring', 'allreduce'] as const
/** Old aggregation names still read, and what they mean now. */
export const legacyAggregationAliases = { local: 'three-stage' } as const

/**
 * An aggregation field that reads the old name `local` as `three-stage` and writes only the new
 * names. A codec, not a preprocess: response schemas are encoded, and a one-way transform
 * cannot be.
 */
export const AggregationField = z.codec(z.enum([...runAggregations, 'local']), z.enum(runAggregations), {
  decode: (v) => (v === 'local' ? legacyAggregationAliases.local : v),
  encode: (v) => v,
})
/**
 * How the reduce/combine stage of a K-means iteration reduces the workers' cluster sums.
 * `regroup` (the default, and the behaviour before issue 20): the regroup by key block of
 * `aggregation`, then a gather at the root. The others reduce whole partials along a tree
 * (after each worker merges its own map tasks): `binomial` (static binomial tree), `fibonacci`
 * (Fibonacci-stat), `tree-dyn` (whoever is ready pairs with the one waiting) and
 * `noncommut-tree-dyn` (pairs only adjacent rank intervals, so rank order is kept); with these,
 * `aggregation` is not used.
 */
export const runReductions = ['regroup', 'binomial', 'fibonacci', 'tree-dyn', 'noncommut-tree-dyn'] as const

/** Map-task assignment algorithms (`auto`: lloyd for k < 64, else hamerly). */
export const runAlgorithms = ['lloyd', 'hamerly', 'yinyang', 'auto'] as const

/**
 * How map tasks find each point's centroid: `exact` (brute force or bounds: the Lloyd labels) or
 * `approximate` (an HNSW index over the centroids, for k ≥ 100,000; recall reported per iteration).
 */
export const runAssignments = ['exact', 'approximate'] as const

/**
 * How an `approximate` run finds centroids after its first iteration: `index` (a new HNSW index
 * searched every iteration) or `walk` (a greedy walk of the centroids' k-NN graph from each point's
 * previous centroid, once the index's recall reaches 0.98; 5–7× cheaper iterations; the index is rebuilt when recall drops).
 */
export const runApproximateSearches = ['index', 'walk'] as const

/**
 * How partial cluster sums travel in the regroup and combine: `exact` (int32 when every value is an
 * integer, else float64: the float64 path's result bitwise) or `float32` (half the bytes of real-valued
 * sums; each centroid coordinate within the bound of docs/runtime.md "Float32 partial sums").
 */
export const runPartials = ['exact', 'float32'] as const

/**
 * How the centroids travel in the broadcast: `float32` (exact), `float16` (half the bytes) or
 * `uint8` (a quarter, plus a per-centroid header); the lossy ones within the bounds of docs/runtime.md.
 */
export const runEncodings = ['float32', 'float16', 'uint8'] as const
export type RunEncoding = (typeof runEncodings)[number]

/** Scalar type of the approximate assignment's HNSW index over the centroids (usearch). */
export const hnswScalarTypes = ['f32', 'f16', 'i8'] as const

/** Bounds of an approximate run's HNSW settings (`CreateRun.hnsw`). */
export const hnswBounds = {
  connectivity: 256,
  expansion: 4096,
  walkDegree: 1024,
  recallSample: 100_000,
} as const

/**
 * Default parameters of a run. The kernel is `auto`: each worker picks by its data — the exact
 * `int8` kernel for a uint8 dataset under exact Lloyd, else `onnx`, onnxruntime's BLAS-backed
 * float32 kernel (the what-if simulator's default map throughput is measured on it), so float32
 * runs are as with `onnx`; `reference` (plain TypeScript) is kept for tests and for machines
 * without onnxruntime. `CreateRun` uses these as its zod defaults, which checks each choice
 * against its list.
 */
export const runDefaults = {
  k: 64,
  maxIterations: 20,
  workers: 2,
  tol: 1e-4,
  slots: 1,
  broadcast: 'chain',
  chainOrder: 'topology',
  aggregation: 'three-stage',
  reduction: 'regroup',
  algorithm: 'lloyd',
  assignment: 'exact',
  approximateSearch: 'index',
  partials: 'exact',
  encoding: 'float32',
  kernel: 'auto',
  seed: 1,
} as const

/** Upper bounds of `CreateRun` that hold on every server (a server's own limits come from `/api/limits`). */
export const runBounds = { maxIterations: 100_000, workers: 256, slots: 64 } as const
