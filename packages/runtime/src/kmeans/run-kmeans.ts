import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { IterationReport, StageName, WorkerIterationReport } from '@codebook/shared'
import { stageNames } from '@codebook/shared'
import type { BroadcastAlgorithm } from '../collectives/broadcast/index.ts'
import { blockBounds } from '../collectives/group.ts'
import type { ReductionChoice } from '../collectives/reduce/reduce.ts'
import type { PartialsEncoding } from '../collectives/regroup/partials.ts'
import type { AggregationMode } from '../collectives/regroup/regroup.ts'
import { CodebookError, UsageError } from '../errors.ts'
import { bytesOf } from '../framework/control-channel.ts'
import { parseControl } from '../framework/protocol.ts'
import {
  WorkerLostError,
  type WorkerPool,
  type WorkerReply,
  WorkerRequestError,
} from '../framework/worker-pool.ts'
import { createRng } from '../random/rng.ts'
import { type ChainOrderKind, chainOrder } from '../topology/chain-order.ts'
import { addRecall, type RecallCount, recallFigures } from './accel/approximate.ts'
import {
  chooseAlgorithm,
  type KmeansAlgorithm,
  type KmeansAlgorithmChoice,
  type KmeansAssignment,
} from './algorithm.ts'
import type { CombineKind } from './centroid-combine.ts'
import { checkpointFile, checkpointShape, readCheckpoint, writeCheckpoint } from './checkpoint.ts'
import { type CentroidEncoding, encodedBytes } from './encoding/centroid-encoding.ts'
import type { InitFromFileRequest } from './init/compute-init.ts'
import { kmeansApplication } from './kmeans-app.ts'
import {
  type IterateResult,
  IterationEvent,
  type LoadRequest,
  LoadResult,
  OPS_PER_ITERATION,
  type TrainRequest,
  TrainResult,
} from './kmeans-messages.ts'

/** The vectors to cluster: a .npy file every worker reads its rows from, or rows in memory sent to workers. */
export type KmeansData =
  | { kind: 'npy'; file: string; n: number; d: number }
  | { kind: 'inline'; points: Float32Array; d: number }

/** Worker errors after which the run goes on from the restart point (anything else fails the run). */
const RECOVERABLE_CODES = [
  'OP_ABORTED',
  'BROADCAST_INCOMPLETE',
  'BROADCAST_SKIPPED',
  'PEER_UNREACHABLE',
  'PEER_CLOSED',
  'RECV_TIMEOUT',
]

/** Options of {@link runKmeans}. */
export interface KmeansRunOptions {
  data: KmeansData
  /**
   * Initial centroids, k × d (k-means++ or given: the caller chooses; see init/), written as the
   * checkpoint of iteration `from`. Without it that checkpoint must already be in `checkpointDir`
   * (written there by {@link initToCheckpoint}, or a resumed run's).
   */
  init?: Float32Array
  /**
   * Directory of the run's checkpoints (`centroids-<i>.npy`, see checkpoint.ts), readable and
   * writable by the broadcast root: on another host, a shared file system. Default: a temporary
   * directory of this machine, removed at the end.
   */
  checkpointDir?: string
  /** Iterations already done: the run starts from checkpoint `from` with iteration `from + 1` (default 0). */
  from?: number
  /** The last iteration (counted from the run's start, resumed or not). */
  maxIterations: number
  /** Relative inertia change that stops the run; 0 runs until no vector changes cluster. */
  tol: number
  /**
   * Inertia of iteration `from`, when continuing from a checkpoint: the first iteration can then
   * stop on `tol` exactly as it would have in the undisturbed run.
   */
  previousInertia?: number
  /** Map tasks per worker. */
  slots: number
  broadcast: BroadcastAlgorithm
  chainOrder: ChainOrderKind
  aggregation: AggregationMode
  /**
   * How the reduce/combine stage reduces (default `regroup`: by key block with `aggregation`,
   * then a gather); a tree reduction reports its time as the reduce stage (`collectives/reduce/`).
   */
  reduction?: ReductionChoice
  /** Seeds the random chain order and empty-cluster splits (iteration i draws from seed + i). */
  seed: number
  /** Kernel name from kmeans/kernel-registry.ts. */
  kernel?: string
  /** Assignment algorithm of every map task (default `lloyd`); `auto` picks by k (see algorithm.ts). */
  algorithm?: KmeansAlgorithmChoice
  /**
   * `approximate`: map tasks assign through an HNSW index over the centroids (no bounds; with
   * `hamerly` / `yinyang` it is refused, `auto` then means no bounds) and report recall each
   * iteration. Default `exact`.
   */
  assignment?: KmeansAssignment
  /** Points per map task in the approximate assignment's recall sample (default 256). */
  recallSample?: number
  /** HNSW tuning of the approximate assignment (defaults: `DEFAULT_HNSW`). */
  hnsw?: LoadRequest['hnsw']
  /** Encoding of the centroid broadcast (default float32: exact). */
  encoding?: CentroidEncoding
  /**
   * What the combine gathers at the root (default `partials`, exact); `centroids` sends each
   * reducer's centroid block in `encoding`, as the papers did (lossy as the encoding is).
   */
  combine?: CombineKind
  /**
   * Encoding of the cluster-sum blocks (default `exact`: int32 or float64); `float32` rounds
   * non-integer sums on the wire, within the bound of docs/runtime.md ("Float32 partial sums").
   */
  partials?: PartialsEncoding
  /** Threads per map task's kernel (see LoadRequest.threadsPerTask); each worker decides when absent. */
  threadsPerTask?: number
  /** The root waits this long for every receiver's broadcast acknowledgement (default 60 s). */
  ackWindowMs?: number
  /** Receive timeout per message inside an iteration (default none: a lost worker is detected by the pool). */
  timeoutMs?: number
  /** Failed attempts at one iteration before giving up. */
  maxRestarts?: number
  /**
   * Called with each iteration's report, in order. The root starts the next iteration (and drops
   * the previous checkpoint) once it returns or its promise resolves: record the report there.
   */
  onIteration?: (report: IterationReport) => unknown
  /** Read the final centroids back (default true); false leaves them in `checkpointDir` only and `centroids` empty. */
  readCentroids?: boolean
  /** Monotonic milliseconds. */
  now: () => number
}

/** Result of a run. */
export interface KmeansRunResult {
  /** The algorithm the map tasks ran (`auto` resolved; `lloyd` under approximate assignment). */
  algorithm: KmeansAlgorithm
  assignment: KmeansAssignment
  /** The registry name of the map tasks' kernel (`auto` resolved by the workers: `int8` or `onnx`). */
  kernel: string
  /** How the workers held the points: `uint8` as stored (a byte kernel under exact Lloyd) or `float32`. */
  heldAs: 'float32' | 'uint8'
  /** The final centroids, k × d (empty with `readCentroids: false`: they are in the last checkpoint). */
  centroids: Float32Array
  /** The last iteration done (counted from the run's start, as `maxIterations`). */
  iterations: number
  /** Whether the stopping rule ended the run (not `maxIterations`). */
  converged: boolean
  inertia: number
  reports: IterationReport[]
  /** Driver wall time of each iteration, ms (between consecutive complete reports; re-runs included). */
  iterationMs: number[]
}

/**
 * Computes a run's initial centroids on worker `rank` (`initFromFile` in that process) and writes
 * them as the checkpoint of iteration 0 in `checkpointDir`: the centroids never reach the driver.
 */
export async function initToCheckpoint(
  pool: WorkerPool,
  req: InitFromFileRequest,
  checkpointDir: string,
  rank = 0,
): Promise<void> {
  await mkdir(checkpointDir, { recursive: true })
  await pool.call(rank, kmeansApplication, { type: 'init', ...req, out: checkpointFile(checkpointDir, 0) })
}

/**
 * K-means on a {@link WorkerPool}, SPMD: the driver loads every worker's partition once, then
 * sends one `train` message; the workers run the iterations (broadcast → map → shuffle → reduce
 * → combine, the root's centroid update and checkpoint, the stopping rule on all-gathered
 * scalars) and each reports every iteration. The driver assembles the reports, hands them to
 * `onIteration` and acknowledges each to the root, which paces the next iteration on it. Neither
 * centroids nor sums pass through the driver.
 *
 * Fault tolerance: the restart point is the checkpoint of the last acknowledged iteration. If a
 * worker is lost (or a broadcast is not acknowledged in time), the driver halts the attempt on
 * every live worker, a replacement process takes the lost rank and reloads its partition, and a
 * new attempt runs from that checkpoint with fresh op ids: the same iterations, the same result.
 */
export async function runKmeans(pool: WorkerPool, opts: KmeansRunOptions): Promise<KmeansRunResult> {
  const ownDir = opts.checkpointDir === undefined
  const dir = opts.checkpointDir ?? (await mkdtemp(join(tmpdir(), 'codebook-kmeans-')))
  try {
    return await drive(pool, opts, dir)
  } finally {
    if (ownDir) await rm(dir, { recursive: true, force: true })
  }
}

async function drive(pool: WorkerPool, opts: KmeansRunOptions, dir: string): Promise<KmeansRunResult> {
  const p = pool.size
  const d = opts.data.d
  const from = opts.from ?? 0
  let k: number
  if (opts.init) {
    k = d === 0 ? 0 : opts.init.length / d
    if (!Number.isInteger(k) || k < 1)
      throw new CodebookError(
        'KMEANS_BAD_INIT',
        `initial centroids (${opts.init.length} values) are not k × ${d}`,
      )
    await mkdir(dir, { recursive: true })
    await writeCheckpoint(dir, from, opts.init, k, d)
  } else {
    const shape = await checkpointShape(dir, from)
    if (shape.d !== d)
      throw new CodebookError(
        'KMEANS_CHECKPOINT_MISMATCH',
        `checkpoint of iteration ${from} has d = ${shape.d}, the data ${d}`,
      )
    k = shape.k
  }
  const n = opts.data.kind === 'npy' ? opts.data.n : opts.data.points.length / d
  if (k > n) throw new CodebookError('KMEANS_BAD_K', `k = ${k} exceeds the number of vectors (${n})`)
  const rows = blockBounds(n, p)
  const slots = Math.max(1, opts.slots)
  const ranks = Array.from({ length: p }, (_, i) => i)
  const root = 0
  const assignment = opts.assignment ?? 'exact'
  const algorithm = assignmentAlgorithm(assignment, opts.algorithm ?? 'lloyd', k)
  const encoding = opts.encoding ?? 'float32'
  // Each of the p − 1 receivers gets the whole (encoded) centroid message once, whatever the broadcast algorithm.
  const broadcastBytesSaved = (p - 1) * (encodedBytes(k, d, 'float32') - encodedBytes(k, d, encoding))

  async function load(rank: number): Promise<LoadResult> {
    const count = rows[rank + 1]! - rows[rank]!
    const partition: LoadRequest['partition'] =
      opts.data.kind === 'npy'
        ? { kind: 'npy', file: opts.data.file, start: rows[rank]!, count }
        : { kind: 'inline' }
    const blobs =
      opts.data.kind === 'inline'
        ? [bytesOf(opts.data.points.subarray(rows[rank]! * d, rows[rank + 1]! * d))]
        : []
    const req: LoadRequest = {
      d,
      slots,
      kernel: opts.kernel,
      threadsPerTask: opts.threadsPerTask,
      algorithm,
      assignment,
      recallSample: opts.recallSample,
      hnsw: opts.hnsw,
      k,
      partition,
    }
    const reply = await pool.call(rank, kmeansApplication, { type: 'load', ...req }, blobs)
    return parseControl(LoadResult, reply.result, 'kmeans load result')
  }
  const loaded = await Promise.all(ranks.map(load))

  const reports: IterationReport[] = []
  const iterationMs: number[] = []
  /** The last iteration whose reports were taken: the restart point. */
  let acknowledged = from
  let inertia = opts.previousInertia ?? Number.NaN
  let restarts = 0
  let lastAt = opts.now()
  const lost = new Set<number>()
  let haltCurrent: () => void = () => {}
  const unsubscribe = pool.onWorkerLost((rank) => {
    lost.add(rank)
    // Unblock the survivors: their receives from the lost worker would otherwise wait forever.
    haltCurrent()
  })

  /** Takes iteration `iteration`'s reports (one per rank): the report, `onIteration`, the acknowledgement. */
  async function complete(iteration: number, results: IterateResult[]): Promise<void> {
    const report = buildReport(
      iteration,
      results,
      pool.racks,
      results[root]?.emptyClustersSplit ?? 0,
      restarts,
      pool.hosts,
    )
    report.distanceFraction = report.workers.reduce((s, w) => s + (w.distancesEvaluated ?? 0), 0) / (n * k)
    report.broadcastBytesSaved = broadcastBytesSaved
    report.partialBytesSaved = results.reduce((s, r) => s + (r.partialBytesSaved ?? 0), 0)
    report.reduction = opts.reduction ?? 'regroup'
    report.assignment = assignment
    if (assignment === 'approximate') {
      const sampled = results.reduce<RecallCount | undefined>(
        (sum, r) => (r.recall ? addRecall(sum, r.recall) : sum),
        undefined,
      )
      const { recall, inertiaGap } = recallFigures(sampled)
      report.assignmentRecall = recall
      report.assignmentInertiaGap = inertiaGap
    }
    restarts = 0
    reports.push(report)
    const now = opts.now()
    iterationMs.push(now - lastAt)
    lastAt = now
    await opts.onIteration?.(report)
    acknowledged = iteration
    inertia = report.inertia
  }

  /** One `train` attempt from the restart point; resolves to its outcome (never rejects). */
  async function attempt(): Promise<{ ok: true; converged: boolean } | { ok: false; errors: Error[] }> {
    const first = acknowledged + 1
    const opBase = pool.nextOpIds(OPS_PER_ITERATION * (opts.maxIterations - first + 1))
    const req: TrainRequest = {
      k,
      d,
      ranks,
      root,
      opBase,
      first,
      maxIterations: opts.maxIterations,
      tol: opts.tol,
      previousInertia: Number.isNaN(inertia) ? null : inertia,
      seed: opts.seed,
      checkpointDir: dir,
      broadcast: {
        algorithm: opts.broadcast,
        order: chainOrder(opts.chainOrder, pool.racks, root, createRng(opts.seed)),
        ackWindowMs: opts.ackWindowMs ?? 60_000,
      },
      aggregation: opts.aggregation,
      reduction: opts.reduction ?? 'regroup',
      taskCounts: ranks.map(() => slots),
      timeoutMs: opts.timeoutMs,
      encoding,
      partials: opts.partials ?? 'exact',
      combine: opts.combine ?? 'partials',
    }
    let halted = false
    const halt = () => {
      // The first failure halts the attempt everywhere, so no survivor waits on a message that will never come.
      if (halted) return
      halted = true
      for (const r of ranks)
        if (pool.alive(r)) pool.call(r, kmeansApplication, { type: 'halt', opBase }).catch(() => {})
    }
    haltCurrent = halt
    const arrived = new Map<number, IterateResult[]>()
    let taking: Promise<void> = Promise.resolve()
    const errors: Error[] = []
    const onEvent = (rank: number) => (body: unknown) => {
      let event: IterationEvent
      try {
        event = parseControl(IterationEvent, body, `worker ${rank}'s iteration report`)
      } catch (err) {
        errors.push(err as Error)
        return halt()
      }
      const results = arrived.get(event.iteration) ?? []
      results[rank] = event.result
      arrived.set(event.iteration, results)
      if (ranks.some((r) => results[r] === undefined)) return
      arrived.delete(event.iteration)
      taking = taking.then(async () => {
        await complete(event.iteration, results)
        if (!halted)
          pool
            .call(root, kmeansApplication, { type: 'acknowledge', opBase, iteration: event.iteration })
            .catch(() => {})
      })
      // A failing onIteration fails the run (not an attempt): stop the workers, then report it.
      taking.catch(() => halt())
    }
    const settled = await Promise.allSettled(
      ranks.map((r) =>
        pool.call(r, kmeansApplication, { type: 'train', ...req }, [], onEvent(r)).catch((err: unknown) => {
          halt()
          throw err
        }),
      ),
    )
    await taking
    haltCurrent = () => {}
    for (const s of settled) if (s.status === 'rejected') errors.push(s.reason as Error)
    if (errors.length > 0) return { ok: false, errors }
    const reply = parseControl(
      TrainResult,
      (settled[root] as PromiseFulfilledResult<WorkerReply>).value.result,
      'kmeans train result',
    )
    return { ok: true, converged: reply.converged }
  }

  let converged = false
  try {
    while (acknowledged < opts.maxIterations) {
      for (const r of [...lost]) {
        await pool.replace(r)
        await load(r)
        lost.delete(r)
      }
      const outcome = await attempt()
      if (outcome.ok) {
        converged = outcome.converged
        break
      }
      const { errors } = outcome
      // Report the root cause, not the aborts it triggered on the other workers.
      const rootCause =
        errors.find((e) => !(e instanceof WorkerRequestError && e.code === 'OP_ABORTED')) ?? errors[0]!
      const recoverable = errors.every(
        (e) =>
          e instanceof WorkerLostError ||
          (e instanceof WorkerRequestError && RECOVERABLE_CODES.includes(e.code)),
      )
      restarts++
      if (!recoverable || restarts > (opts.maxRestarts ?? 3)) throw rootCause
      for (const e of errors) {
        // Workers the broadcast could not reach are alive but unusable: replace them too.
        if (e instanceof WorkerRequestError && e.code === 'BROADCAST_SKIPPED')
          for (const r of e.ranks) lost.add(r)
      }
      for (const r of ranks) if (!pool.alive(r)) lost.add(r)
    }
  } finally {
    unsubscribe()
  }
  return {
    algorithm,
    assignment,
    kernel: loaded[root]!.kernel,
    heldAs: loaded[root]!.heldAs,
    centroids:
      opts.readCentroids === false ? new Float32Array(0) : await readCheckpoint(dir, acknowledged, k, d),
    iterations: acknowledged,
    converged,
    inertia: Number.isNaN(inertia) ? 0 : inertia,
    reports,
    iterationMs,
  }
}

/**
 * The map tasks' algorithm under `assignment`: approximate assignment uses no bounds, so it
 * runs as `lloyd` and refuses an explicit `hamerly` / `yinyang` rather than mix the two silently.
 * @throws UsageError KMEANS_ASSIGNMENT_CONFLICT.
 */
export function assignmentAlgorithm(
  assignment: KmeansAssignment,
  choice: KmeansAlgorithmChoice,
  k: number,
): KmeansAlgorithm {
  if (assignment === 'exact') return chooseAlgorithm(choice, k)
  if (choice !== 'lloyd' && choice !== 'auto')
    throw new UsageError(
      'KMEANS_ASSIGNMENT_CONFLICT',
      `--assignment approximate uses no bounds: it cannot run with --algorithm ${choice} (use auto or lloyd)`,
    )
  return 'lloyd'
}

/** Folds the workers' results into an {@link IterationReport}: stage ms = the slowest worker (critical path). */
export function buildReport(
  iteration: number,
  results: IterateResult[],
  racks: readonly string[],
  emptyClustersSplit: number,
  restarts: number,
  /** Host name of each rank (as the workers reported them). */
  hosts: readonly string[] = [],
): IterationReport {
  const stages = {} as IterationReport['stages']
  for (const s of stageNames) {
    let ms = 0
    let bytes = 0
    let intra = 0
    let cross = 0
    for (const r of results) {
      const st = r.stages[s]
      ms = Math.max(ms, st.ms)
      bytes += st.bytes.sent
      intra += st.bytes.intraRackSent
      cross += st.bytes.crossRackSent
    }
    stages[s] = { ms, bytes, intraRackBytes: intra, crossRackBytes: cross }
  }
  const workers: WorkerIterationReport[] = results.map((r) => ({
    rank: r.rank,
    rack: racks[r.rank] ?? '',
    ...(hosts[r.rank] === undefined ? {} : { host: hosts[r.rank] }),
    points: r.points,
    stages: Object.fromEntries(
      stageNames.map((s: StageName) => {
        const st = r.stages[s]
        return [
          s,
          {
            ms: st.ms,
            bytesSent: st.bytes.sent,
            bytesReceived: st.bytes.received,
            intraRackBytes: st.bytes.intraRackSent,
            crossRackBytes: st.bytes.crossRackSent,
          },
        ]
      }),
    ) as WorkerIterationReport['stages'],
    inertia: r.inertia,
    reassigned: r.reassigned,
    distancesEvaluated: r.distancesEvaluated,
    maxRssBytes: r.maxRssBytes,
    ...(r.approximateMs ? { approximateMs: r.approximateMs } : {}),
    ...(r.approximateSearch ? { approximateSearch: r.approximateSearch } : {}),
  }))
  return {
    iteration,
    stages,
    inertia: results.reduce((s, r) => s + r.inertia, 0),
    reassigned: results.reduce((s, r) => s + r.reassigned, 0),
    emptyClustersSplit,
    encoding: {
      sparseMessages: results.reduce((s, r) => s + r.sparseMessages, 0),
      denseMessages: results.reduce((s, r) => s + r.denseMessages, 0),
    },
    restarts,
    workers,
  }
}
