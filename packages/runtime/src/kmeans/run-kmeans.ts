import type { IterationReport, StageName, WorkerIterationReport } from '@codebook/shared'
import { stageNames } from '@codebook/shared'
import type { BroadcastAlgorithm } from '../collectives/broadcast/index.ts'
import { blockBounds } from '../collectives/group.ts'
import type { ReductionChoice } from '../collectives/reduce/reduce.ts'
import type { PartialsEncoding } from '../collectives/regroup/partials.ts'
import type { AggregationMode } from '../collectives/regroup/regroup.ts'
import { CodebookError, UsageError } from '../errors.ts'
import { asFloat64, bytesOf } from '../framework/control-channel.ts'
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
import { type CentroidEncoding, encodeCentroids, encodedBytes } from './encoding/centroid-encoding.ts'
import { kmeansApplication } from './kmeans-app.ts'
import { type IterateRequest, IterateResult, type LoadRequest } from './kmeans-messages.ts'
import { shouldStop, updateCentroids } from './update-centroids.ts'

/** The vectors to cluster: a .npy file every worker reads its rows from, or rows in memory sent to workers. */
export type KmeansData =
  | { kind: 'npy'; file: string; n: number; d: number }
  | { kind: 'inline'; points: Float32Array; d: number }

/** Worker errors after which an iteration is re-run from the checkpoint (anything else fails the run). */
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
  /** Initial centroids, k × d (k-means++ or given: the caller chooses; see init/kmeans-plus-plus.ts). */
  init: Float32Array
  maxIterations: number
  /** Relative inertia change that stops the run; 0 runs until no vector changes cluster. */
  tol: number
  /**
   * Inertia of the iteration before the first one run here, when continuing from a checkpoint:
   * the first iteration can then stop on `tol` exactly as it would have in the undisturbed run.
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
  /** Seeds the random chain order and empty-cluster splits. */
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
  /** Re-runs of one iteration from the checkpoint before giving up. */
  maxRestarts?: number
  /** Called after every iteration with its report and the new centroids (a checkpoint for the caller). */
  onIteration?: (report: IterationReport, centroids: Float32Array) => void
  /** Monotonic milliseconds. */
  now: () => number
}

/** Result of a run. */
export interface KmeansRunResult {
  /** The algorithm the map tasks ran (`auto` resolved; `lloyd` under approximate assignment). */
  algorithm: KmeansAlgorithm
  assignment: KmeansAssignment
  centroids: Float32Array
  iterations: number
  inertia: number
  reports: IterationReport[]
  /** Driver wall time of each iteration, ms (`now()` from sending the centroids to the new centroids; re-runs included). */
  iterationMs: number[]
}

/**
 * The driver's K-means loop on a {@link WorkerPool}: loads every worker's partition once, then
 * runs iterations (Lloyd, or exact Hamerly / Yinyang assignment in the map tasks) as broadcast → map → shuffle → reduce → combine (worker 0 is the
 * broadcast root and gathers the reduced blocks), forms the new centroids, and stops by
 * `maxIterations` / `tol`.
 *
 * Fault tolerance: the driver keeps the centroids of the last completed iteration as the
 * checkpoint. If a worker is lost (or a broadcast is not acknowledged in time), the iteration's
 * ops are aborted on every live worker, a replacement process takes the lost rank and reloads
 * its partition, and the iteration is re-run from the checkpoint with fresh op ids.
 */
export async function runKmeans(pool: WorkerPool, opts: KmeansRunOptions): Promise<KmeansRunResult> {
  const p = pool.size
  const d = opts.data.d
  const k = d === 0 ? 0 : opts.init.length / d
  if (!Number.isInteger(k) || k < 1)
    throw new CodebookError(
      'KMEANS_BAD_INIT',
      `initial centroids (${opts.init.length} values) are not k × ${d}`,
    )
  const n = opts.data.kind === 'npy' ? opts.data.n : opts.data.points.length / d
  if (k > n) throw new CodebookError('KMEANS_BAD_K', `k = ${k} exceeds the number of vectors (${n})`)
  const rows = blockBounds(n, p)
  const slots = Math.max(1, opts.slots)
  const ranks = Array.from({ length: p }, (_, i) => i)
  const assignment = opts.assignment ?? 'exact'
  const algorithm = assignmentAlgorithm(assignment, opts.algorithm ?? 'lloyd', k)
  const encoding = opts.encoding ?? 'float32'
  // Each of the p − 1 receivers gets the whole (encoded) centroid message once, whatever the broadcast algorithm.
  const broadcastBytesSaved = (p - 1) * (encodedBytes(k, d, 'float32') - encodedBytes(k, d, encoding))

  async function load(rank: number): Promise<void> {
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
    await pool.call(rank, kmeansApplication, { type: 'load', ...req }, blobs)
  }
  await Promise.all(ranks.map(load))

  const lost = new Set<number>()
  let inFlight: number[] = []
  const unsubscribe = pool.onWorkerLost((rank) => {
    lost.add(rank)
    // Unblock the survivors: their receives from the lost worker would otherwise wait forever.
    const ops = inFlight
    for (const r of ranks)
      if (r !== rank && pool.alive(r)) pool.request(r, { type: 'abort', ops }).catch(() => {})
  })

  try {
    return await iterate()
  } finally {
    unsubscribe()
  }

  async function iterate(): Promise<KmeansRunResult> {
    let centroids: Float32Array = Float32Array.from(opts.init)
    const reports: IterationReport[] = []
    const iterationMs: number[] = []
    let prevInertia: number | null = opts.previousInertia ?? null
    let lastInertia = 0
    let iteration = 0
    while (iteration < opts.maxIterations) {
      iteration++
      const started = opts.now()
      let restarts = 0
      let done: { results: IterateResult[]; sums: Float64Array; counts: Float64Array } | null = null
      while (!done) {
        for (const r of [...lost]) {
          await pool.replace(r)
          await load(r)
          lost.delete(r)
        }
        const ops = {
          broadcast: pool.nextOpId(),
          shuffle: pool.nextOpId(),
          reduce: pool.nextOpId(),
          combine: pool.nextOpId(),
        }
        inFlight = Object.values(ops)
        const req: IterateRequest = {
          iteration,
          k,
          d,
          ranks,
          root: 0,
          ops,
          broadcast: {
            algorithm: opts.broadcast,
            order: chainOrder(opts.chainOrder, pool.racks, 0, createRng(opts.seed)),
            ackWindowMs: opts.ackWindowMs ?? 60_000,
          },
          aggregation: opts.aggregation,
          reduction: opts.reduction ?? 'regroup',
          taskCounts: ranks.map(() => slots),
          timeoutMs: opts.timeoutMs,
          encoding,
          partials: opts.partials ?? 'exact',
        }
        const blob = encoding === 'float32' ? bytesOf(centroids) : encodeCentroids(centroids, k, d, encoding)
        let aborted = false
        const abortAll = () => {
          // The first failure aborts the attempt everywhere, so no survivor waits on a message that will never come.
          if (aborted) return
          aborted = true
          for (const r of ranks)
            if (pool.alive(r)) pool.request(r, { type: 'abort', ops: Object.values(ops) }).catch(() => {})
        }
        const settled = await Promise.allSettled(
          ranks.map((r) =>
            pool
              .call(r, kmeansApplication, { type: 'iterate', ...req }, r === 0 ? [blob] : [])
              .catch((err: unknown) => {
                abortAll()
                throw err
              }),
          ),
        )
        const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []))
        if (errors.length === 0) {
          const replies = settled.map((s) => (s as PromiseFulfilledResult<WorkerReply>).value)
          const root = replies[0]!
          done = {
            results: replies.map((m) => parseControl(IterateResult, m.result, 'kmeans iterate result')),
            sums: asFloat64(root.blobs[0]!),
            counts: asFloat64(root.blobs[1]!),
          }
          break
        }
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
      inFlight = []
      const update = updateCentroids(
        { k, d, sums: done.sums, counts: done.counts },
        createRng(opts.seed + iteration),
      )
      const report = buildReport(
        iteration,
        done.results,
        pool.racks,
        update.emptyClustersSplit,
        restarts,
        pool.hosts,
      )
      report.distanceFraction = report.workers.reduce((s, w) => s + (w.distancesEvaluated ?? 0), 0) / (n * k)
      report.broadcastBytesSaved = broadcastBytesSaved
      report.partialBytesSaved = done.results.reduce((s, r) => s + (r.partialBytesSaved ?? 0), 0)
      report.reduction = opts.reduction ?? 'regroup'
      report.assignment = assignment
      if (assignment === 'approximate') {
        const sampled = done.results.reduce<RecallCount | undefined>(
          (sum, r) => (r.recall ? addRecall(sum, r.recall) : sum),
          undefined,
        )
        const { recall, inertiaGap } = recallFigures(sampled)
        report.assignmentRecall = recall
        report.assignmentInertiaGap = inertiaGap
      }
      reports.push(report)
      iterationMs.push(opts.now() - started)
      opts.onIteration?.(report, update.centroids)
      centroids = update.centroids
      lastInertia = report.inertia
      const stop = shouldStop(opts, iteration, report.inertia, prevInertia, report.reassigned)
      prevInertia = report.inertia
      if (stop) break
    }
    return {
      algorithm,
      assignment,
      centroids,
      iterations: iteration,
      inertia: lastInertia,
      reports,
      iterationMs,
    }
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
