import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type IterationReport, runDefaults, type StageName, stageNames } from '@codebook/shared'
import { type Command, Option } from 'commander'
import { type PartialsEncoding, partialsEncodings } from '../../collectives/regroup/partials.ts'
import { UsageError } from '../../errors.ts'
import { writeNpy } from '../../formats/index.ts'
import { type SpawnWorker, spawnLocalWorker } from '../../framework/spawn.ts'
import { type ApproximateSearch, hnswScalars } from '../../kmeans/accel/approximate.ts'
import {
  type KmeansAlgorithmChoice,
  type KmeansAssignment,
  kmeansAlgorithmChoices,
  kmeansAssignments,
} from '../../kmeans/algorithm.ts'
import { benchData, byteBenchData } from '../../kmeans/bench-data.ts'
import { kernelNames } from '../../kmeans/kernel-registry.ts'
import { median } from '../../median.ts'
import { DEFAULT_CHUNK_BYTES } from '../../transport/data-plane.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { DEFAULT_FAISS_PYTHON, type FaissAnchor, runFaissAnchor } from './bench-faiss.ts'
import { type HnswFlags, runKmeansCommand, walkOptions } from './kmeans.ts'
import { nonNegativeInt, nonNegativeNumber, positiveInt } from './parse-options.ts'

/** Options of `codebook bench kmeans`; the approximate assignment's as `codebook kmeans` takes them. */
export interface BenchKmeansOptions extends HnswFlags {
  /** Approximate: points per map task in the recall sample. */
  recallSample?: number
  /** Size of the generated data (ignored with `data`). */
  n: number
  /** Element type of the generated data: float32 blobs (default) or HOG-like uint8 (`generateByteBlobs`). */
  dtype?: BenchDtype
  d: number
  k: number
  iterations: number
  algorithm: KmeansAlgorithmChoice
  /** Exact (default) or approximate (HNSW) assignment. */
  assignment?: KmeansAssignment
  /** Cluster-sum encoding of the regroup/combine (default exact). */
  partials?: PartialsEncoding
  /** A .npy to cluster instead of generated data. */
  data?: string
  /** Initial centroids .npy; default: the generated data's seeded random rows, or `--init random` over `data`. */
  init?: string
  workers: number
  slots: number
  kernel: string
  /** 0 (default): run `iterations` unless no vector changes cluster earlier. */
  tol: number
  /** Gaussian blobs of the generated data; 0 = standard normal. */
  blobs: number
  seed: number
  json?: boolean
  /** Also run FAISS's K-means on the same data and init (see {@link runFaissAnchor}). */
  faiss?: boolean
  /** FAISS iterations (default `iterations`): fewer keeps a large-k anchor affordable. */
  faissIterations?: number
  /** The Python with `faiss` (default /usr/bin/python3). */
  faissPython?: string
}

/** Element types `bench kmeans --dtype` generates. */
export const benchDtypes = ['float32', 'uint8'] as const
export type BenchDtype = (typeof benchDtypes)[number]

/** What `codebook bench kmeans` prints. */
export interface BenchKmeansResult {
  /** The kernel the workers built (`--kernel auto` resolved: `int8`, `onnx`, …). */
  kernel: string
  /** The algorithm the map tasks ran (`auto` resolved). */
  algorithm: string
  /** How the workers held the points: `uint8` as stored, or widened to `float32`. */
  heldAs: 'float32' | 'uint8'
  /** Median driver wall time of one iteration, ms. */
  msPerIteration: number
  /** Driver wall time of all iterations (to convergence or the cap), ms; excludes spawning, loading and init. */
  totalMs: number
  iterations: number
  /** Inertia of the last iteration's assignment. */
  inertia: number
  /** Distances evaluated ÷ (n·k·iterations): 1 for Lloyd. */
  distanceFraction: number
  /** Approximate assignment: the mean of the iterations' sampled recall. */
  assignmentRecall?: number
  /** Bytes the int32 / float32 sums saved against float64, over all iterations (absent when none). */
  partialBytesSaved?: number
  /** Peak resident set, MiB: the largest of the driver's and every worker's process. */
  peakRssMB: number
  /** The driver's own peak resident set, MiB. */
  driverPeakRssMB: number
  /** The largest worker's peak resident set, MiB (0 when no worker reported one). */
  workerPeakRssMB: number
  /**
   * Each iteration: driver wall time, each stage's time (slowest worker) within it, and the
   * fraction of the n·k distances evaluated, to see where a run's time goes.
   */
  perIteration: Array<{
    ms: number
    stageMs: Record<StageName, number>
    distanceFraction: number
    /** Approximate assignment: index build, search and recall check (slowest worker each), and the recall. */
    approximate?: {
      /** `walk` when every worker walked the centroid graph, else `index`. */
      search: ApproximateSearch
      buildMs: number
      graphMs: number
      searchMs: number
      recallMs: number
      recall: number
      /** The recall sample's inertia under the approximate labels ÷ under the exact ones − 1. */
      inertiaGap: number
    }
  }>
  /** With `--faiss`: FAISS on the same data and init, or why it could not run. */
  faiss?: FaissAnchor
}

/** An approximate iteration's parts (slowest worker each, ms rounded to 0.1), or nothing. */
function approximateParts(
  r: IterationReport,
): Pick<BenchKmeansResult['perIteration'][number], 'approximate'> {
  if (r.assignmentRecall === undefined) return {}
  const slowest = (part: 'build' | 'graph' | 'search' | 'recall') =>
    Math.round(Math.max(0, ...r.workers.map((w) => w.approximateMs?.[part] ?? 0)) * 10) / 10
  return {
    approximate: {
      search: r.workers.every((w) => w.approximateSearch === 'walk') ? 'walk' : 'index',
      buildMs: slowest('build'),
      graphMs: slowest('graph'),
      searchMs: slowest('search'),
      recallMs: slowest('recall'),
      recall: r.assignmentRecall,
      inertiaGap: r.assignmentInertiaGap ?? 0,
    },
  }
}

/**
 * Runs `codebook bench kmeans`: writes seeded data (and its init) to a temporary directory
 * unless `--data` is given, then runs K-means exactly as `codebook kmeans` does (spawned local
 * workers, .npy partitions) and summarises the per-iteration reports.
 */
export async function runBenchKmeans(
  o: BenchKmeansOptions,
  io: CommandIo = processIo(),
  spawn: SpawnWorker = spawnLocalWorker,
): Promise<BenchKmeansResult> {
  if (o.faiss && o.data && !o.init)
    throw new UsageError(
      'BENCH_FAISS_NEEDS_INIT',
      '--faiss with --data needs --init: FAISS must start from the same centroids',
    )
  const dir = await mkdtemp(join(tmpdir(), 'codebook-bench-kmeans-'))
  try {
    let data = o.data
    let init = o.init
    if (!data) {
      if (o.k > o.n) throw new UsageError('BENCH_BAD_K', `--k ${o.k} exceeds --n ${o.n}`)
      const generated =
        o.dtype === 'uint8'
          ? byteBenchData(o.n, o.d, o.k, o.blobs, o.seed)
          : benchData(o.n, o.d, o.k, o.blobs, o.seed)
      data = join(dir, 'points.npy')
      await writeNpy(data, generated.points, o.n, o.d)
      if (!init) {
        init = join(dir, 'init.npy')
        await writeNpy(init, generated.init, o.k, o.d)
      }
    }
    const silent: CommandIo = { stdout: { write: () => true }, stderr: io.stderr }
    const run = await runKmeansCommand(
      {
        data,
        k: o.k,
        init: init ?? 'random',
        iterations: o.iterations,
        tol: o.tol,
        workers: o.workers,
        slots: o.slots,
        broadcast: 'chain',
        chainOrder: 'topology',
        aggregation: 'three-stage',
        seed: o.seed,
        chunkBytes: DEFAULT_CHUNK_BYTES,
        kernel: o.kernel,
        algorithm: o.algorithm,
        assignment: o.assignment,
        partials: o.partials,
        hnswConnectivity: o.hnswConnectivity,
        hnswExpansion: o.hnswExpansion,
        hnswScalar: o.hnswScalar,
        approximateSearch: o.approximateSearch,
        walkDegree: o.walkDegree,
        walkMinRecall: o.walkMinRecall,
        recallSample: o.recallSample,
        json: true,
      },
      silent,
      spawn,
    )
    const fractions = run.reports.map((r) => r.distanceFraction ?? 1)
    const recalls = run.reports.flatMap((r) => (r.assignmentRecall === undefined ? [] : [r.assignmentRecall]))
    const saved = run.reports.reduce((s, r) => s + (r.partialBytesSaved ?? 0), 0)
    const driverRss = process.resourceUsage().maxRSS * 1024
    let workerRss = 0
    for (const r of run.reports)
      for (const w of r.workers) workerRss = Math.max(workerRss, w.maxRssBytes ?? 0)
    const rss = Math.max(driverRss, workerRss)
    // FAISS runs after Codebook (not alongside: both use every core) on the same files.
    const faiss =
      o.faiss && data && init
        ? await runFaissAnchor(
            data,
            init,
            o.faissIterations ?? o.iterations,
            o.faissPython ?? DEFAULT_FAISS_PYTHON,
          )
        : undefined
    const result: BenchKmeansResult = {
      kernel: run.kernel,
      algorithm: run.algorithm,
      heldAs: run.heldAs,
      msPerIteration: median(run.iterationMs),
      totalMs: run.iterationMs.reduce((s, v) => s + v, 0),
      iterations: run.iterations,
      inertia: run.inertia,
      distanceFraction: fractions.reduce((s, v) => s + v, 0) / fractions.length,
      ...(recalls.length > 0
        ? { assignmentRecall: recalls.reduce((s, v) => s + v, 0) / recalls.length }
        : {}),
      ...(saved > 0 ? { partialBytesSaved: saved } : {}),
      peakRssMB: rss / 2 ** 20,
      driverPeakRssMB: driverRss / 2 ** 20,
      workerPeakRssMB: workerRss / 2 ** 20,
      perIteration: run.reports.map((r, i) => ({
        ms: Math.round(run.iterationMs[i]! * 10) / 10,
        stageMs: Object.fromEntries(
          stageNames.map((st) => [st, Math.round(r.stages[st].ms * 10) / 10]),
        ) as Record<StageName, number>,
        distanceFraction: Math.round((r.distanceFraction ?? 1) * 1e4) / 1e4,
        ...approximateParts(r),
      })),
      ...(faiss ? { faiss } : {}),
    }
    io.stdout.write(
      o.json
        ? `${JSON.stringify(result)}\n`
        : `${run.algorithm} on ${run.kernel}${run.heldAs === 'uint8' ? ' (uint8 points)' : ''}: ${result.msPerIteration.toFixed(1)} ms/iteration (median), ` +
            `${result.totalMs.toFixed(0)} ms for ${result.iterations} iterations, inertia ${result.inertia.toExponential(6)}, ` +
            `distance fraction ${result.distanceFraction.toPrecision(3)}, ` +
            (result.assignmentRecall === undefined
              ? ''
              : `approximate recall ${result.assignmentRecall.toFixed(3)}, `) +
            (result.partialBytesSaved ? `${result.partialBytesSaved} B saved by narrower sums, ` : '') +
            `peak RSS ${result.peakRssMB.toFixed(0)} MiB\n` +
            (faiss ? faissLine(faiss, result.msPerIteration) : ''),
    )
    return result
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The human line of `--faiss`: FAISS's figures and Codebook's median iteration against its mean. */
function faissLine(f: FaissAnchor, msPerIteration: number): string {
  if (!f.available) return `faiss: not run (${f.reason})\n`
  return (
    `faiss ${f.version}: ${f.msPerIteration.toFixed(1)} ms/iteration (mean), ${f.totalMs.toFixed(0)} ms for ` +
    `${f.iterations} iterations, inertia ${f.inertia.toExponential(6)}; codebook/faiss per iteration ` +
    `${(msPerIteration / f.msPerIteration).toFixed(3)}\n`
  )
}

/** Registers `codebook bench kmeans`. */
export function registerBenchKmeans(program: Command, io: CommandIo = processIo()): void {
  const bench =
    program.commands.find((c) => c.name() === 'bench') ?? program.command('bench').description('Benchmarks')
  const command = bench
    .command('kmeans')
    .description(
      'Time K-means as `codebook kmeans` runs it (spawned local workers) on seeded data (or --data): ' +
        'prints median ms per iteration, total ms, iterations, inertia, distance fraction and peak RSS ' +
        '(max over the driver and workers). Not a test: note the machine load with the figures.',
    )
    .option('--n <N>', 'generated vectors', positiveInt('--n'), 20_000)
    .addOption(
      new Option('--dtype <type>', 'generated data: float32 blobs, or HOG-like uint8 (blobs ≥ 1)')
        .choices(benchDtypes)
        .default('float32'),
    )
    .option('--d <D>', 'generated dimensions', positiveInt('--d'), 128)
    .requiredOption('--k <K>', 'centroids', positiveInt('--k'))
    .option('--iterations <I>', 'maximum iterations', positiveInt('--iterations'), 10)
    .addOption(
      new Option('--algorithm <name>', 'map-task assignment')
        .choices(kmeansAlgorithmChoices)
        .default('lloyd'),
    )
    .addOption(
      new Option('--assignment <kind>', 'exact, or approximate (HNSW over the centroids)')
        .choices(kmeansAssignments)
        .default('exact'),
    )
    .addOption(
      new Option('--partials <enc>', 'cluster-sum encoding: exact, or float32 (lossy, bounded)')
        .choices(partialsEncodings)
        .default('exact'),
    )
    .option('--hnsw-connectivity <M>', 'approximate: HNSW graph degree', positiveInt('--hnsw-connectivity'))
    .option(
      '--hnsw-expansion <EF>',
      'approximate: HNSW search expansion (insertion twice it)',
      positiveInt('--hnsw-expansion'),
    )
    .addOption(new Option('--hnsw-scalar <type>', 'approximate: index scalar type').choices(hnswScalars))
    .option(
      '--recall-sample <S>',
      'approximate: points per map task checked against the exact nearest each iteration (default 256)',
      nonNegativeInt('--recall-sample'),
    )
    .option('--data <file>', 'cluster this .npy instead of generated data')
    .option('--init <file>', 'initial centroids .npy (default: seeded random rows)')
    .option('--workers <P>', 'worker processes', positiveInt('--workers'), 1)
    .option('--slots <S>', 'map tasks per worker', positiveInt('--slots'), 1)
    .option(
      '--kernel <name>',
      `assignment kernel: ${kernelNames().join(' | ')} (auto: int8 for uint8 data under exact Lloyd or Hamerly from k = 4,096, else onnx)`,
      runDefaults.kernel,
    )
    .option('--tol <T>', 'relative inertia change that stops the run', nonNegativeNumber('--tol'), 0)
    .option(
      '--blobs <B>',
      'Gaussian blobs in the generated data (0: standard normal)',
      nonNegativeInt('--blobs'),
      0,
    )
    .option('--seed <S>', 'seed of the data, init and splits', nonNegativeInt('--seed'), 1)
    .option('--json', 'print the result as one JSON object')
    .option('--faiss', 'also run FAISS (Debian python3-faiss) on the same data and init, and print both')
    .option(
      '--faiss-iterations <I>',
      'FAISS iterations (default: --iterations)',
      positiveInt('--faiss-iterations'),
    )
    .option('--faiss-python <path>', 'the Python that imports faiss', DEFAULT_FAISS_PYTHON)
  walkOptions(command).action(async (o: BenchKmeansOptions) => {
    await runBenchKmeans(o, io)
  })
}
