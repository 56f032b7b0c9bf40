import { copyFile, mkdtemp, rename, rm } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { type IterationReport, KmeansSpec, runDefaults, type Topology } from '@codebook/shared'
import { type Command, Option } from 'commander'
import { type BroadcastAlgorithm, broadcastAlgorithms } from '../../collectives/broadcast/index.ts'
import { type ReductionChoice, reductionChoices } from '../../collectives/reduce/reduce.ts'
import { type PartialsEncoding, partialsEncodings } from '../../collectives/regroup/partials.ts'
import {
  type AggregationMode,
  aggregationModes,
  parseAggregation,
} from '../../collectives/regroup/regroup.ts'
import { UsageError } from '../../errors.ts'
import { openNpy } from '../../formats/index.ts'
import { type SpawnWorker, spawnLocalWorker } from '../../framework/spawn.ts'
import { WorkerPool } from '../../framework/worker-pool.ts'
import {
  type ApproximateSearch,
  approximateSearches,
  DEFAULT_HNSW,
  DEFAULT_WALK_MIN_RECALL,
  type HnswScalar,
  hnswScalars,
} from '../../kmeans/accel/approximate.ts'
import { DEFAULT_WALK_DEGREE } from '../../kmeans/accel/centroid-graph.ts'
import {
  type KmeansAlgorithmChoice,
  type KmeansAssignment,
  kmeansAlgorithmChoices,
  kmeansAssignments,
} from '../../kmeans/algorithm.ts'
import { type CombineKind, combineKinds } from '../../kmeans/centroid-combine.ts'
import { checkpointFile } from '../../kmeans/checkpoint.ts'
import { CENTROID_ENCODINGS, type CentroidEncoding } from '../../kmeans/encoding/centroid-encoding.ts'
import { DEFAULT_INIT_METHOD, INIT_METHODS, isInitMethod } from '../../kmeans/init/compute-init.ts'
import { kernelNames } from '../../kmeans/kernel-registry.ts'
import { initToCheckpoint, type KmeansRunResult, runKmeans } from '../../kmeans/run-kmeans.ts'
import { kmeansOptionsOf, threadsPerTaskOf } from '../../kmeans/run-spec.ts'
import { planNodeNames, readPlanFile } from '../../mapping/plan-file.ts'
import { type ChainOrderKind, chainOrderKinds } from '../../topology/chain-order.ts'
import { mappedWorkerRacks, readTopology, workerRacks } from '../../topology/load-topology.ts'
import { DEFAULT_CHUNK_BYTES } from '../../transport/data-plane.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { npyDataShape } from './npy-data.ts'
import { byteSize, fractionOption, nonNegativeInt, nonNegativeNumber, positiveInt } from './parse-options.ts'

/** Options of `codebook kmeans`. */
export interface KmeansCommandOptions extends HnswFlags {
  data: string
  k?: number
  iterations: number
  tol: number
  workers: number
  slots: number
  broadcast: BroadcastAlgorithm
  chainOrder: ChainOrderKind
  aggregation: AggregationMode
  /** Reduction of the reduce/combine stage (default `regroup`, by key block with `aggregation`). */
  reduction?: ReductionChoice
  topology?: string
  /** A `codebook plan mapping --out` file: worker i runs on the node its planner gave rank i (needs `topology`). */
  mapping?: string
  /** `aggregation` was chosen on the command line (a plan's own aggregation then does not replace it). */
  aggregationGiven?: boolean
  /** The plan's planner to follow (default: its cheapest). */
  planner?: string
  /** Initial centroids: a k × d .npy file, or an init method of {@link INIT_METHODS} (default kmeans++). */
  init?: string
  /** Assignment algorithm of the map tasks (default lloyd). */
  algorithm?: KmeansAlgorithmChoice
  /** Exact (default) or approximate (HNSW) assignment. */
  assignment?: KmeansAssignment
  /** Encoding of the centroid broadcast (default float32). */
  encoding?: CentroidEncoding
  /** Encoding of the cluster-sum blocks (default exact: int32 or float64; float32 is lossy, bounded). */
  partials?: PartialsEncoding
  /** What the combine gathers at the root: the sums (exact), or centroid blocks in --encoding. */
  combine?: CombineKind
  /** Points per map task whose approximate label is checked each iteration (default 256). */
  recallSample?: number
  seed: number
  chunkBytes: number
  out?: string
  json?: boolean
  kernel: string
}

/**
 * The --init file's centroids, or null when --init names a seeded method (or is absent): those
 * are computed on the first worker ({@link initToCheckpoint}), as the server does.
 */
async function initFileCentroids(o: KmeansCommandOptions, d: number): Promise<Float32Array | null> {
  if (!o.init || isInitMethod(o.init)) {
    if (o.k === undefined)
      throw new UsageError('KMEANS_NO_K', 'give --k, or --init with the initial centroids')
    return null
  }
  const f = await openNpy(o.init)
  try {
    if (f.d !== d)
      throw new UsageError('KMEANS_BAD_INIT', `${o.init}: centroids have d = ${f.d}, the data has d = ${d}`)
    if (o.k !== undefined && f.n !== o.k)
      throw new UsageError('KMEANS_BAD_INIT', `${o.init}: has ${f.n} centroids, --k is ${o.k}`)
    const rows = await f.readRows(0, f.n)
    return rows instanceof Float32Array ? rows : Float32Array.from(rows)
  } finally {
    await f.close()
  }
}

/**
 * Rack per worker: from --mapping's plan when given, else the topology's nodes in order; and the
 * aggregation to run: a K-means plan's own (what it priced) unless --aggregation was given.
 */
async function placement(
  o: KmeansCommandOptions,
  topology: Topology | null,
  io: CommandIo,
): Promise<{ racks: string[]; aggregation: AggregationMode }> {
  if (o.mapping === undefined) {
    if (o.planner !== undefined) throw new UsageError('BAD_OPTION', '--planner needs --mapping')
    return { racks: workerRacks(topology, o.workers), aggregation: o.aggregation }
  }
  if (topology === null)
    throw new UsageError(
      'MAPPING_NEEDS_TOPOLOGY',
      '--mapping places workers on nodes of a --topology; give one',
    )
  const plan = await readPlanFile(o.mapping)
  const racks = mappedWorkerRacks(topology, planNodeNames(plan, topology, o.workers, o.planner))
  if (plan.aggregation === undefined || o.aggregationGiven || plan.aggregation === o.aggregation)
    return { racks, aggregation: o.aggregation }
  io.stderr.write(
    `note: --aggregation ${plan.aggregation}, as the plan priced it (give --aggregation to override)\n`,
  )
  return { racks, aggregation: plan.aggregation }
}

/** The approximate assignment's flags, as `codebook kmeans` and `bench kmeans` take them. */
export interface HnswFlags {
  /** HNSW graph degree. */
  hnswConnectivity?: number
  /** HNSW search expansion (insertion: twice it). */
  hnswExpansion?: number
  /** Scalar type of the HNSW index's centroids. */
  hnswScalar?: HnswScalar
  /** Search a new index each iteration, or walk the centroid graph. */
  approximateSearch?: ApproximateSearch
  /** Neighbours per centroid of the walk's graph. */
  walkDegree?: number
  /** Recall below which a walking worker rebuilds its index. */
  walkMinRecall?: number
}

/** Adds the graph-walk flags of the approximate assignment to `command`. */
export function walkOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--approximate-search <how>',
        "approximate: index (a new HNSW index searched every iteration) or walk (walk a graph of the centroids from each point's previous centroid; rebuild when recall drops)",
      ).choices(approximateSearches),
    )
    .option(
      '--walk-degree <M>',
      `approximate walk: neighbours per centroid (default ${DEFAULT_WALK_DEGREE})`,
      positiveInt('--walk-degree'),
    )
    .option(
      '--walk-min-recall <R>',
      `approximate walk: recall floor — walking starts once the sampled recall reaches it, and stops (the index is rebuilt) once the sample shows recall below it at 95 % confidence (default ${DEFAULT_WALK_MIN_RECALL})`,
      fractionOption('--walk-min-recall'),
    )
}

/** Formats one iteration for people: inertia, then each stage's time and bytes. */
function humanLine(r: IterationReport): string {
  const stages = Object.entries(r.stages)
    .map(
      ([s, v]) =>
        `${s}${s === 'reduce' && r.reduction && r.reduction !== 'regroup' ? ` (${r.reduction})` : ''} ${v.ms.toFixed(1)} ms/${v.bytes} B${v.crossRackBytes ? ` (${v.crossRackBytes} cross-rack)` : ''}`,
    )
    .join(', ')
  const extra = [
    r.distanceFraction !== undefined ? `distance fraction ${r.distanceFraction.toPrecision(3)}` : '',
    r.assignmentRecall !== undefined
      ? `approximate, recall ${r.assignmentRecall.toFixed(3)}, sample inertia gap ${((r.assignmentInertiaGap ?? 0) * 100).toFixed(2)} %`
      : '',
    r.broadcastBytesSaved ? `${r.broadcastBytesSaved} B saved by encoding` : '',
    r.partialBytesSaved ? `${r.partialBytesSaved} B saved by narrower sums` : '',
    r.emptyClustersSplit ? `${r.emptyClustersSplit} empty split` : '',
    r.restarts ? `${r.restarts} restarts` : '',
  ]
    .filter(Boolean)
    .join(', ')
  return `iter ${r.iteration}: inertia ${r.inertia.toExponential(6)}, reassigned ${r.reassigned} | ${stages}${extra ? ` | ${extra}` : ''}\n`
}

/**
 * Runs `codebook kmeans`: spawns `workers` local worker processes (or uses a topology for their
 * racks), clusters the .npy, prints one line per iteration (JSON with --json), a final line, and
 * moves the final centroids to --out (the result holds them only without --out).
 */
export async function runKmeansCommand(
  o: KmeansCommandOptions,
  io: CommandIo = processIo(),
  spawn: SpawnWorker = spawnLocalWorker,
): Promise<KmeansRunResult> {
  const { n, d } = await npyDataShape(o.data, 'codebook kmeans')
  const fromFile = await initFileCentroids(o, d)
  const topology = o.topology ? await readTopology(o.topology) : null
  const { racks, aggregation } = await placement(o, topology, io)
  // Parsed before any worker starts: a flag out of bounds costs nothing.
  const spec = specOf(o, aggregation)
  const pool = await WorkerPool.start({ workers: o.workers, spawn, racks, chunkBytes: o.chunkBytes })
  // The run's checkpoints (the root writes one per iteration, keeping the restart point only).
  const checkpointDir = await mkdtemp(join(tmpdir(), 'codebook-kmeans-'))
  try {
    if (!fromFile)
      await initToCheckpoint(
        pool,
        {
          file: o.data,
          method: o.init && isInitMethod(o.init) ? o.init : DEFAULT_INIT_METHOD,
          k: o.k as number,
          seed: o.seed,
          kernel: o.kernel,
          // The other workers idle meanwhile: the init's kernel gets every core (the server passes the same).
          threads: availableParallelism(),
        },
        checkpointDir,
      )
    const result = await runKmeans(pool, {
      ...kmeansOptionsOf(spec),
      // Not a server run parameter (yet): the papers' combine, for reproducing their byte counts.
      combine: o.combine,
      data: { kind: 'npy', file: o.data, n, d },
      ...(fromFile ? { init: fromFile } : {}),
      checkpointDir,
      // Locally spawned workers share this machine: split its cores between the workers. Not
      // between slots too: onnxruntime-node runs a session synchronously on the worker's JS
      // thread, so a worker's map tasks run one after another (measured at 100k × 512 × 1,000,
      // 2 cores: 2 slots × 1 thread 1.31 s per map stage, 1 slot × 2 threads 0.93 s).
      threadsPerTask: threadsPerTaskOf(pool.hosts, o.workers, true),
      now: () => performance.now(),
      onIteration: (r) => io.stdout.write(o.json ? `${JSON.stringify(r)}\n` : humanLine(r)),
      // With --out the last checkpoint is moved there, never read into this process.
      readCentroids: !o.out,
    })
    const final = checkpointFile(checkpointDir, result.iterations)
    if (o.out) await moveFile(final, o.out)
    const done = { done: true, iterations: result.iterations, inertia: result.inertia, out: o.out ?? null }
    io.stdout.write(
      o.json
        ? `${JSON.stringify(done)}\n`
        : `done: ${result.iterations} iterations, inertia ${result.inertia.toExponential(6)}, ${o.out ? `centroids → ${o.out}` : 'centroids not written (add --out FILE.npy to keep them)'}\n`,
    )
    return result
  } finally {
    await pool.close()
    await rm(checkpointDir, { recursive: true, force: true })
  }
}

/** Moves `from` to `to` (a rename, or a copy when they are on different file systems). */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err
    await copyFile(from, to)
  }
}

/** The flag of each spec field, for errors (a field not listed is named as it is). */
const flagOfField: Record<string, string> = {
  maxIterations: '--iterations',
  chainOrder: '--chain-order',
  approximateSearch: '--approximate-search',
  'hnsw.connectivity': '--hnsw-connectivity',
  'hnsw.expansion': '--hnsw-expansion',
  'hnsw.scalar': '--hnsw-scalar',
  'hnsw.walkDegree': '--walk-degree',
  'hnsw.walkMinRecall': '--walk-min-recall',
  'hnsw.recallSample': '--recall-sample',
}

/**
 * The run spec the flags give, parsed by the shared `KmeansSpec` (a server run's params): the
 * CLI takes the server's bounds and defaults, and both reach the runtime alike.
 * @throws UsageError `BAD_OPTION` naming the flag and the bound it breaks.
 */
function specOf(o: KmeansCommandOptions, aggregation: AggregationMode): KmeansSpec {
  const parsed = KmeansSpec.safeParse({
    maxIterations: o.iterations,
    tol: o.tol,
    slots: o.slots,
    broadcast: o.broadcast,
    chainOrder: o.chainOrder,
    aggregation,
    reduction: o.reduction,
    seed: o.seed,
    kernel: o.kernel,
    algorithm: o.algorithm,
    assignment: o.assignment,
    approximateSearch: o.approximateSearch,
    hnsw: {
      connectivity: o.hnswConnectivity,
      expansion: o.hnswExpansion,
      scalar: o.hnswScalar,
      walkDegree: o.walkDegree,
      walkMinRecall: o.walkMinRecall,
      recallSample: o.recallSample,
    },
    partials: o.partials,
    encoding: o.encoding,
  })
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const field = issue.path.join('.')
  throw new UsageError('BAD_OPTION', `${flagOfField[field] ?? `--${field}`}: ${issue.message}`)
}

/** Registers `codebook kmeans`. */
export function registerKmeans(program: Command, io: CommandIo = processIo()): void {
  const command = program
    .command('kmeans')
    .description(
      'Cluster a .npy of vectors with K-means on the Map-Collective runtime: the driver spawns --workers local worker processes, ' +
        'each holding its partition in memory; each iteration is broadcast → map → shuffle → reduce → combine. ' +
        'Stops after --iterations, when the relative inertia change is ≤ --tol, or (--tol 0) when no vector changes cluster.',
    )
    .requiredOption('--data <file>', 'vectors, n × d float32 or uint8 .npy')
    .option('--k <K>', 'number of centroids (k-means++ init, seeded)', positiveInt('--k'))
    .option('--iterations <N>', 'maximum iterations', positiveInt('--iterations'), runDefaults.maxIterations)
    .option(
      '--tol <T>',
      'relative inertia change that stops the run; 0: until no reassignment',
      nonNegativeNumber('--tol'),
      runDefaults.tol,
    )
    .option('--workers <P>', 'worker processes', positiveInt('--workers'), runDefaults.workers)
    .option('--slots <S>', 'map tasks per worker', positiveInt('--slots'), runDefaults.slots)
    .addOption(
      new Option('--broadcast <algorithm>', 'centroid broadcast')
        .choices(broadcastAlgorithms)
        .default(runDefaults.broadcast),
    )
    .addOption(
      new Option('--chain-order <order>', 'chain order')
        .choices(chainOrderKinds)
        .default(runDefaults.chainOrder),
    )
    .addOption(
      new Option(
        '--aggregation <mode>',
        `shuffle/reduce aggregation: ${aggregationModes.join(', ')} (three-stage = the Map-Collective paper's: local merge, all-to-all by block, gather; ring = ring reduce-scatter, then gather; the old name local = three-stage)`,
      )
        .argParser(parseAggregation)
        .default(runDefaults.aggregation),
    )
    .addOption(
      new Option(
        '--reduction <name>',
        'reduce/combine stage: regroup (by key block with --aggregation, then a gather at worker 0), or whole sums along a tree after each worker merges its tasks: binomial, fibonacci (Fibonacci-stat), tree-dyn (whoever is ready pairs with the one waiting), noncommut-tree-dyn (adjacent ranks only)',
      )
        .choices(reductionChoices)
        .default(runDefaults.reduction),
    )
    .option(
      '--topology <file>',
      'topology JSON: worker i runs as the i-th node (its rack counts for cross-rack bytes)',
    )
    .option(
      '--mapping <plan.json>',
      'a `codebook plan mapping --out` plan: worker i runs as the topology node the plan gave rank i (plan sites matched to topology sites by name, else by position; see docs/mapping.md)',
    )
    .option('--planner <name>', "the plan's planner to follow with --mapping (default: its cheapest)")
    .option(
      '--init <file|method>',
      `initial centroids: a k × d .npy, or a seeded method over the data (${INIT_METHODS.join(' | ')}; default kmeans++)`,
    )
    .addOption(
      new Option(
        '--algorithm <name>',
        'map-task assignment: lloyd, exact hamerly / yinyang bounds, or auto (lloyd for k < 64, else hamerly: fastest measured on clustered data up to k = 2,500)',
      )
        .choices(kmeansAlgorithmChoices)
        .default(runDefaults.algorithm),
    )
    .addOption(
      new Option(
        '--assignment <kind>',
        'exact (the Lloyd labels) or approximate: an HNSW index over the centroids (usearch), for k ≥ 100,000; recall on a sample is reported every iteration',
      )
        .choices(kmeansAssignments)
        .default(runDefaults.assignment),
    )
    .addOption(
      new Option('--encoding <enc>', 'centroid broadcast encoding (float16 / uint8 are lossy)')
        .choices(CENTROID_ENCODINGS)
        .default('float32'),
    )
    .addOption(
      new Option(
        '--combine <what>',
        "what the combine gathers at the root: partials (the reduced sums, exact) or centroids (each reducer's block of centroids in --encoding, as the papers' reducers sent them; lossy as the encoding)",
      )
        .choices(combineKinds)
        .default('partials'),
    )
    .addOption(
      new Option(
        '--partials <enc>',
        'cluster-sum encoding of the regroup/combine: exact (int32 for integer sums, else float64) or float32 (lossy, bounded: docs/runtime.md)',
      )
        .choices(partialsEncodings)
        .default('exact'),
    )
    .option(
      '--hnsw-connectivity <M>',
      `approximate assignment: HNSW graph degree (default ${DEFAULT_HNSW.connectivity})`,
      positiveInt('--hnsw-connectivity'),
    )
    .option(
      '--hnsw-expansion <EF>',
      `approximate assignment: HNSW search expansion, insertion twice it (default ${DEFAULT_HNSW.expansionSearch})`,
      positiveInt('--hnsw-expansion'),
    )
    .addOption(
      new Option(
        '--hnsw-scalar <type>',
        'approximate assignment: scalar type of the indexed centroids',
      ).choices(hnswScalars),
    )
    .option(
      '--recall-sample <S>',
      'approximate assignment: points per map task checked against the exact nearest centroid each iteration (default 256)',
      nonNegativeInt('--recall-sample'),
    )
    .option(
      '--seed <S>',
      'seed of the init, random chain order and empty-cluster splits',
      nonNegativeInt('--seed'),
      runDefaults.seed,
    )
    .option(
      '--chunk-bytes <B>',
      'data-plane chunk size (e.g. 512K)',
      byteSize('--chunk-bytes'),
      DEFAULT_CHUNK_BYTES,
    )
    .option(
      '--kernel <name>',
      `assignment kernel: ${kernelNames().join(' | ')} (onnx: BLAS speed)`,
      runDefaults.kernel,
    )
    .option('--out <file>', 'write the final centroids (k × d float32 .npy)')
    .option('--json', 'one JSON object per iteration, then {"done":true,…}')
  walkOptions(command).action(async (o: KmeansCommandOptions, cmd: Command) => {
    const aggregationGiven = cmd.getOptionValueSource('aggregation') === 'cli'
    // A tree reduction replaces the regroup: say so rather than silently ignore a chosen --aggregation.
    if (o.reduction && o.reduction !== 'regroup' && aggregationGiven)
      io.stderr.write(`note: --aggregation ${o.aggregation} is not used with --reduction ${o.reduction}\n`)
    await runKmeansCommand({ ...o, aggregationGiven }, io)
  })
}
