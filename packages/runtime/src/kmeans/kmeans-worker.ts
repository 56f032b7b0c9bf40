import { availableParallelism } from 'node:os'
import type { StageName } from '@codebook/shared'
import { allGather } from '../collectives/all-gather.ts'
import { broadcast } from '../collectives/broadcast/index.ts'
import type { Group } from '../collectives/group.ts'
import { blockBounds } from '../collectives/group.ts'
import { reduceToRoot } from '../collectives/reduce/reduce.ts'
import { clusterSumsCombiner } from '../collectives/regroup/cluster-sums-combiner.ts'
import type { Combiner } from '../collectives/regroup/combiner.ts'
import type { Partials } from '../collectives/regroup/partials.ts'
import { combineAtRoot, regroup } from '../collectives/regroup/regroup.ts'
import { CodebookError } from '../errors.ts'
import { openNpy } from '../formats/index.ts'
import type { RequestContext } from '../framework/application.ts'
import { asFloat32, asFloat64, bytesOf } from '../framework/control-channel.ts'
import { createRng } from '../random/rng.ts'
import { addTotals } from '../transport/byte-counters.ts'
import type { DataPlane } from '../transport/data-plane.ts'
import type { AccelOptions, AccelState } from './accel/accel-state.ts'
import {
  type ApproximateState,
  addRecall,
  buildCentroidIndex,
  type CentroidIndex,
  createApproximateState,
  DEFAULT_WALK_MIN_RECALL,
  type HnswOptions,
  type RecallCount,
  walkMayContinue,
} from './accel/approximate.ts'
import { type CentroidGraph, DEFAULT_WALK_DEGREE } from './accel/centroid-graph.ts'
import { createHamerlyState } from './accel/hamerly.ts'
import { createLloydState } from './accel/lloyd.ts'
import { createYinyangState } from './accel/yinyang.ts'
import type { KmeansAlgorithm } from './algorithm.ts'
import { bytePasses, createByteLloydState, hasByteFullPasses, isByteKernel } from './byte-lloyd.ts'
import { centroidBlockCombiner } from './centroid-combine.ts'
import { pruneCheckpoints, readCheckpoint, writeCheckpoint } from './checkpoint.ts'
import { type ClusterSums, createClusterSums } from './cluster-sums.ts'
import { decodeCentroids, encodeCentroids } from './encoding/centroid-encoding.ts'
import { type KernelFactory, kernelFactory as namedKernel, resolveKernelName } from './kernel-registry.ts'
import type { AssignKernel, DistanceMatrixKernel } from './kernels/assign-kernel.ts'
import {
  type IterateResult,
  type IterationEvent,
  type LoadRequest,
  type LoadResult,
  OPS_PER_ITERATION,
  type TrainRequest,
  type TrainResult,
} from './kmeans-messages.ts'
import { shouldStop, updateCentroids } from './update-centroids.ts'

interface MapTask {
  /** The task's rows: float32, or uint8 as stored when a byte kernel scans them (see `load`). */
  points: Float32Array | Uint8Array
  /** The task's cluster sums and the labels they follow, kept across iterations. */
  sums: ClusterSums
  kernel: AssignKernel
  /** The exact assignment strategy (Lloyd, Hamerly or Yinyang), its bounds kept across iterations. */
  exact: AccelState
  /** Lloyd's pass on the kernel: the strategy when k < 2 (bounds need a second-nearest centroid). */
  lloyd: AccelState
  /** The HNSW assignment of `assignment: 'approximate'` (then it replaces `exact`). */
  approximate: ApproximateState | null
  /** A float32 kernel built beside a byte kernel for Hamerly's or Yinyang's other passes (see `load`), disposed with it. */
  companion?: AssignKernel
}

/** The kernel as a dense-pass kernel for the accelerated states, if it can return distance blocks. */
function denseKernel(kernel: AssignKernel): DistanceMatrixKernel | undefined {
  const k = kernel as Partial<DistanceMatrixKernel>
  return typeof k.distances === 'function' && typeof k.distanceErrorBound === 'function'
    ? (kernel as DistanceMatrixKernel)
    : undefined
}

/**
 * Creates the exact assignment strategy of `algorithm` over a task's points (`lloyd` for Lloyd);
 * `byteScans`: Hamerly's or Yinyang's full passes from the same rows as bytes (`bytePasses`).
 */
function createExactState(
  algorithm: KmeansAlgorithm,
  points: Float32Array,
  d: number,
  kernel: AssignKernel,
  lloyd: AccelState,
  byteScans: AccelOptions = {},
): AccelState {
  if (algorithm === 'lloyd') return lloyd
  const n = d === 0 ? 0 : points.length / d
  const options = { ...byteScans, dense: denseKernel(kernel) }
  return algorithm === 'hamerly'
    ? createHamerlyState(points, n, d, options)
    : createYinyangState(points, n, d, options)
}

/** The op ids of one iteration's collectives (`OPS_PER_ITERATION` consecutive ids). */
interface IterationOps {
  broadcast: number
  shuffle: number
  reduce: number
  combine: number
  /** The all-gather of every rank's inertia and reassignments (counted in the combine stage). */
  scalars: number
}

function iterationOps(req: TrainRequest, iteration: number): IterationOps {
  const base = req.opBase + OPS_PER_ITERATION * (iteration - req.first)
  return { broadcast: base, shuffle: base + 1, reduce: base + 2, combine: base + 3, scalars: base + 4 }
}

/**
 * One `train` attempt at this worker: how far the driver has acknowledged, and whether it was
 * halted (a worker was lost). Halting aborts the ops of the iteration in progress, so a wait on
 * a lost peer ends at once, and fails the wait for an acknowledgement.
 */
class TrainAttempt {
  acknowledged: number
  halted = false
  private current: number[] = []
  private waiter: { until: number; resolve: () => void; reject: (e: Error) => void } | null = null

  constructor(
    readonly opBase: number,
    first: number,
    private readonly plane: DataPlane,
  ) {
    this.acknowledged = first - 1
  }

  /** Marks `ops` as the iteration in progress (throws `OP_ABORTED` once halted). */
  enter(ops: IterationOps): void {
    if (this.halted) throw this.haltError()
    this.current = Object.values(ops)
  }

  acknowledge(iteration: number): void {
    this.acknowledged = Math.max(this.acknowledged, iteration)
    if (this.waiter && this.acknowledged >= this.waiter.until) {
      this.waiter.resolve()
      this.waiter = null
    }
  }

  halt(): void {
    this.halted = true
    const err = this.haltError()
    for (const op of this.current) this.plane.abort(op, err)
    this.waiter?.reject(err)
    this.waiter = null
  }

  /** Resolves once iteration `iteration` is acknowledged; rejects when the attempt is halted. */
  until(iteration: number): Promise<void> {
    if (this.halted) return Promise.reject(this.haltError())
    if (this.acknowledged >= iteration) return Promise.resolve()
    return new Promise((resolve, reject) => {
      this.waiter = { until: iteration, resolve, reject }
    })
  }

  private haltError(): CodebookError {
    return new CodebookError('OP_ABORTED', `training attempt ${this.opBase} halted by the driver`)
  }
}

/** The shuffle, reduce and combine stages of an iteration at one worker. */
interface ReducedSums {
  /** The cluster sums over every worker's points, at the root; null elsewhere. */
  full: Partials | null
  shuffleMs: number
  reduceMs: number
  combineMs: number
  sparseMessages: number
  denseMessages: number
  /** Bytes the int32 / float32 forms of the sums saved against float64 in this worker's messages. */
  savedBytes: number
}

/**
 * Reduces the map tasks' sums of every worker to the root: by key block (`regroup`, with the
 * request's aggregation) then a gather, or — with a tree reduction — a merge of this worker's
 * tasks (counted as its shuffle) and a reduction of whole sums along the tree (its reduce; moving
 * the result to the root, when the tree ends elsewhere, is its combine).
 */
async function reduceSums(
  g: (op: number) => Group,
  req: TrainRequest,
  ops: IterationOps,
  partials: readonly Partials[],
  now: () => number,
): Promise<ReducedSums> {
  const base = clusterSumsCombiner(req.d, req.partials ?? 'exact')
  let savedBytes = 0
  // Counts what the int32 (or float32) form of the sums saved on the wire (the report's partialBytesSaved).
  const combiner: Combiner<Partials> = {
    ...base,
    encode(p, from, to) {
      const e = base.encode(p, from, to)
      savedBytes += e.savedBytes ?? 0
      return e
    },
  }
  const reduction = req.reduction ?? 'regroup'
  if (reduction !== 'regroup') {
    const t = now()
    const local = combiner.zero(req.k)
    for (const p of partials) combiner.combine(local, p)
    const shuffleMs = now() - t
    const r = await reduceToRoot(
      g(ops.reduce),
      { reduce: ops.reduce, combine: ops.combine },
      req.root,
      { combiner, value: local, keys: req.k },
      reduction,
      now,
    )
    return { full: r.result, shuffleMs, ...r, savedBytes }
  }
  const r = await regroup(
    g(ops.shuffle),
    { shuffle: ops.shuffle, reduce: ops.reduce },
    partials,
    req.taskCounts,
    req.aggregation,
    combiner,
    req.k,
    now,
  )
  const t = now()
  const gatherer =
    req.combine === 'centroids' ? centroidBlockCombiner(req.d, req.encoding ?? 'float32') : combiner
  const full = await combineAtRoot(g(ops.combine), req.root, r, req.aggregation, gatherer)
  return { ...r, full, combineMs: now() - t, savedBytes }
}

/**
 * A worker's K-means state: its partition split into `slots` map tasks, loaded once and kept in
 * memory across iterations (with each task's cluster sums and the labels they follow).
 */
export class KmeansWorkerState {
  private tasks: MapTask[] = []
  private d = 0
  /** Approximate assignment: the index tuning, threads included (null under exact assignment). */
  private hnsw: HnswOptions | null = null
  /** Walk mode: the centroid graph of the last index, the last iteration's recall sample and whether it walked. */
  private graph: CentroidGraph | null = null
  private lastRecall: RecallCount | undefined
  private lastWalked = false

  constructor(
    private readonly factory: KernelFactory | null,
    private readonly now: () => number,
  ) {}

  /** Loads (or reloads) this worker's partition and builds one kernel per map task. */
  async load(req: LoadRequest, blobs: Uint8Array[]): Promise<LoadResult> {
    await this.dispose()
    let rows: Float32Array | Uint8Array
    if (req.partition.kind === 'inline') rows = asFloat32(blobs[0] ?? new Uint8Array(0))
    else {
      const f = await openNpy(req.partition.file)
      try {
        if (f.d !== req.d)
          throw new CodebookError(
            'KMEANS_BAD_PARTITION',
            `${req.partition.file}: d = ${f.d}, the run expects ${req.d}`,
          )
        const raw = await f.readRows(req.partition.start, req.partition.count)
        if (raw instanceof Int32Array)
          throw new CodebookError('KMEANS_BAD_PARTITION', `${req.partition.file}: int32 rows are not points`)
        rows = raw
      } finally {
        await f.close()
      }
    }
    this.d = req.d
    const n = req.d === 0 ? 0 : rows.length / req.d
    const algorithm = req.algorithm ?? 'lloyd'
    const assignment = req.assignment ?? 'exact'
    // `auto` picks by the data (int8 for uint8 under any exact algorithm at large k, else onnx): kernel-registry.ts.
    const kernelName = resolveKernelName(req.kernel ?? 'reference', {
      bytes: rows instanceof Uint8Array,
      k: req.k,
      algorithm,
      assignment,
    })
    const factory = this.factory ?? namedKernel(kernelName)
    const slots = Math.max(1, req.slots)
    // onnxruntime-node runs a session synchronously on the JS thread (its async `run` is a
    // setImmediate around the native call), so a worker's map tasks take turns: each gets all cores.
    const threads = req.threadsPerTask ?? availableParallelism()
    this.hnsw = req.assignment === 'approximate' ? { threads, ...req.hnsw } : null
    this.graph = null
    this.lastRecall = undefined
    this.lastWalked = false
    const kernels: AssignKernel[] = []
    for (let t = 0; t < slots; t++) kernels.push(await factory({ threads }))
    // Bytes stay bytes: a uint8 partition is held (n·d bytes) and scanned as uint8 when every task's
    // kernel takes bytes (int8) under exact Lloyd. Elsewhere it widens to float32 here, once (4·n·d
    // bytes): Hamerly, Yinyang and the approximate assignment keep float32 points and call float32
    // distance-matrix kernels (Hamerly and Yinyang keep the bytes too on int8, below), and a float32
    // kernel (`--kernel onnx` / `reference`) takes float32.
    // As bytes, values still widen one at a time, never as a copy of the rows: the cluster sums
    // accumulate in float64 and the int8 kernel settles uncertain labels with exact float64
    // distances (its candidate scores are int32 products, converted to float32 scores).
    // The k-means++ / k-means|| init reads its own sample (≤ 100k rows) as float32 (compute-init.ts).
    const keepBytes =
      rows instanceof Uint8Array &&
      algorithm === 'lloyd' &&
      assignment === 'exact' &&
      kernels.every(isByteKernel)
    const data = rows instanceof Uint8Array && !keepBytes ? Float32Array.from(rows) : rows
    // Hamerly or Yinyang on a byte kernel (int8) over uint8 data keeps the bytes too (n·d more than
    // the float32 copy, 5·n·d in all): their passes over all points scan them exactly (`bytePasses`:
    // Hamerly's nearest-two passes, its first about half a run at k = 20,000, with `nearestTwoBytes`;
    // Yinyang's full passes with `nearestBoundsBytes`, its group bounds from the kernel's candidate
    // lists); their bounds, re-scans, moved sets, group passes and neighbourhoods use the float32
    // copy on a float32 `onnx` kernel built beside it.
    const byteBounded =
      rows instanceof Uint8Array &&
      (algorithm === 'hamerly' || algorithm === 'yinyang') &&
      assignment === 'exact' &&
      kernels.every(hasByteFullPasses)
    const b = blockBounds(n, slots)
    for (let t = 0; t < slots; t++) {
      const kernel = kernels[t]!
      if (data instanceof Uint8Array && isByteKernel(kernel)) {
        const bytes = data.subarray(b[t]! * req.d, b[t + 1]! * req.d)
        const lloyd = createByteLloydState(bytes, b[t + 1]! - b[t]!, req.d, kernel)
        if (req.k !== undefined) await lloyd.prepare(req.k)
        this.tasks.push({
          points: bytes,
          sums: createClusterSums(bytes, req.d),
          kernel,
          exact: lloyd,
          lloyd,
          approximate: null,
        })
        continue
      }
      const pts = (data as Float32Array).subarray(b[t]! * req.d, b[t + 1]! * req.d)
      const taskN = req.d === 0 ? 0 : pts.length / req.d
      const approximate =
        req.assignment === 'approximate'
          ? createApproximateState(pts, taskN, req.d, kernel, {
              recallSample: req.recallSample,
              threads,
              ...req.hnsw,
            })
          : null
      const lloyd = createLloydState(pts, taskN, req.d, kernel)
      // An approximate task keeps no bounds: its exact strategy is only the k < 2 fallback.
      const algorithm = approximate ? 'lloyd' : (req.algorithm ?? 'lloyd')
      let companion: AssignKernel | undefined
      let exact: AccelState
      if (byteBounded && hasByteFullPasses(kernel)) {
        companion = await namedKernel('onnx')({ threads })
        const bytes = (rows as Uint8Array).subarray(b[t]! * req.d, b[t + 1]! * req.d)
        exact = createExactState(algorithm, pts, req.d, companion, lloyd, bytePasses(kernel, bytes))
      } else exact = createExactState(algorithm, pts, req.d, kernel, lloyd)
      if (req.k !== undefined) await (approximate ?? exact).prepare(req.k)
      this.tasks.push({
        points: pts,
        sums: createClusterSums(pts, req.d),
        kernel,
        exact,
        lloyd,
        approximate,
        companion,
      })
    }
    return {
      points: n,
      tasks: this.tasks.length,
      // The registry's name (`auto` resolved); an in-process factory's kernel by its own name.
      kernel: this.factory ? (kernels[0]?.name ?? kernelName) : kernelName,
      dtype: rows instanceof Uint8Array ? 'uint8' : 'float32',
      heldAs: data instanceof Uint8Array ? 'uint8' : 'float32',
    }
  }

  /** The current `train` attempt (null between attempts). */
  private attempt: TrainAttempt | null = null

  /** `acknowledge`: the driver took iteration `iteration`'s reports of attempt `opBase`. */
  acknowledge(opBase: number, iteration: number): void {
    if (this.attempt?.opBase === opBase) this.attempt.acknowledge(iteration)
  }

  /** `halt`: ends attempt `opBase` (its collectives fail with `OP_ABORTED`). */
  halt(opBase: number): void {
    if (this.attempt?.opBase === opBase) this.attempt.halt()
  }

  /**
   * Runs iterations `req.first` … until the stopping rule or `req.maxIterations`, SPMD: every
   * rank runs the same loop; the root broadcasts the centroids, updates them from the reduced sums
   * and checkpoints them; inertia and reassignments reach every rank by an all-gather, so all
   * stop together. Emits an {@link IterationEvent} per iteration; the root starts iteration i + 1
   * only once the driver acknowledged iteration i, and deletes older checkpoints then.
   */
  async train(ctx: RequestContext, req: TrainRequest): Promise<TrainResult> {
    const { plane } = ctx
    const { k, d } = req
    if (d !== this.d)
      throw new CodebookError('KMEANS_NOT_LOADED', `worker ${plane.rank}: no partition of width ${d} loaded`)
    const attempt = new TrainAttempt(req.opBase, req.first, plane)
    this.attempt = attempt
    const isRoot = req.ranks.indexOf(plane.rank) === req.root
    const g = (op: number): Group => ({ plane, ranks: req.ranks, op, timeoutMs: req.timeoutMs })
    const encoding = req.encoding ?? 'float32'
    try {
      let centroids = isRoot ? await readCheckpoint(req.checkpointDir, req.first - 1, k, d) : null
      let previous = req.previousInertia
      for (let iteration = req.first; iteration <= req.maxIterations; iteration++) {
        const ops = iterationOps(req, iteration)
        attempt.enter(ops)
        const input =
          centroids === null
            ? null
            : encoding === 'float32'
              ? bytesOf(centroids)
              : encodeCentroids(centroids, k, d, encoding)
        const step = await this.iterate(plane, req, ops, input)

        // Combine, continued: every rank learns the iteration's totals; the root forms the new centroids.
        const t = this.now()
        const mine = Float64Array.of(step.result.inertia, step.result.reassigned)
        const all = await allGather(g(ops.scalars), bytesOf(mine))
        let inertia = 0
        let reassigned = 0
        // Summed in rank order at every rank: the same float64 total everywhere (and in the driver's report).
        for (const block of all) {
          const v = asFloat64(block)
          inertia += v[0]!
          reassigned += v[1]!
        }
        const result = step.result
        if (isRoot && step.full) {
          const update = updateCentroids(step.full, createRng(req.seed + iteration))
          centroids = update.centroids
          result.emptyClustersSplit = update.emptyClustersSplit
        }
        result.stages.combine.ms += this.now() - t
        result.stages.combine.bytes = addTotals(
          result.stages.combine.bytes,
          plane.counters.takeOp(ops.scalars),
        )
        if (isRoot && centroids) await writeCheckpoint(req.checkpointDir, iteration, centroids, k, d)
        ctx.emit({ iteration, result } satisfies IterationEvent)
        const stop = shouldStop(req, iteration, inertia, previous, reassigned)
        previous = inertia
        if (isRoot) {
          // The root goes on once the driver took this iteration; the previous checkpoint, the
          // restart point until then, can go.
          await attempt.until(iteration)
          await pruneCheckpoints(req.checkpointDir, iteration)
        }
        if (stop || iteration === req.maxIterations) return { iteration, converged: stop }
      }
      return { iteration: req.first - 1, converged: false }
    } finally {
      if (this.attempt === attempt) this.attempt = null
    }
  }

  /** Runs one iteration's broadcast → map → shuffle → reduce → combine (gather) at this worker. */
  private async iterate(
    plane: DataPlane,
    req: TrainRequest,
    ops: IterationOps,
    input: Uint8Array | null,
  ): Promise<{ result: IterateResult; full: Partials | null }> {
    const { k, d } = req
    const g = (op: number): Group => ({ plane, ranks: req.ranks, op, timeoutMs: req.timeoutMs })
    const ms: Record<StageName, number> = { broadcast: 0, map: 0, shuffle: 0, reduce: 0, combine: 0 }

    let t = this.now()
    const bc = await broadcast(g(ops.broadcast), req.root, input, req.broadcast)
    if (bc.skipped.length > 0) {
      // A member the chain routed around has no centroids, so this iteration cannot complete:
      // fail it and name the unreachable workers so the driver replaces them and re-runs.
      const ranks = bc.skipped.map((i) => req.ranks[i]!)
      throw Object.assign(
        new CodebookError(
          'BROADCAST_SKIPPED',
          `workers ${ranks.join(', ')} refused connections during the broadcast`,
        ),
        { ranks },
      )
    }
    const encoding = req.encoding ?? 'float32'
    // The broadcast buffer is a fresh allocation (or the control blob), so it is 4-aligned.
    const centroids =
      encoding === 'float32'
        ? asFloat32(bc.data.byteOffset % 4 === 0 ? bc.data : new Uint8Array(bc.data))
        : decodeCentroids(bc.data, k, d, encoding)
    ms.broadcast = this.now() - t

    t = this.now()
    const partials: Partials[] = []
    let inertia = 0
    let reassigned = 0
    let points = 0
    let distancesEvaluated = 0
    let recall: IterateResult['recall']
    // One index per worker and iteration, shared by its map tasks (each task building its own
    // multiplied the build, the larger cost at k ≥ 100,000, by the slots).
    // Walk mode: walk the centroid graph while the last recall sample held up, else rebuild the
    // index (and the graph from it) and search it this iteration.
    const walkMode = this.hnsw?.search === 'walk'
    const walk =
      walkMode &&
      this.graph?.k === k &&
      walkMayContinue(this.lastRecall, this.lastWalked, this.hnsw?.walkMinRecall ?? DEFAULT_WALK_MIN_RECALL)
    const index: CentroidIndex | null =
      this.hnsw && !walk ? buildCentroidIndex(centroids, k, d, this.hnsw) : null
    const rebuilt = index && walkMode ? index.graph(this.hnsw?.walkDegree ?? DEFAULT_WALK_DEGREE) : null
    if (rebuilt) this.graph = rebuilt
    const approximateMs = this.hnsw
      ? {
          build: index?.buildMs ?? 0,
          ...(rebuilt ? { graph: rebuilt.buildMs } : {}),
          search: 0,
          recall: 0,
        }
      : undefined
    let walked = walk
    // The map tasks are started together (a kernel whose native call is truly asynchronous would
    // overlap; onnxruntime-node's does not); their sums are then updated task by task, in a fixed
    // order, so results do not depend on timing.
    // Accelerated states need k ≥ 2 (a second-nearest centroid); with one centroid Lloyd is trivial anyway.
    const assigned = await Promise.all(
      this.tasks.map(async (task) => {
        if (task.approximate) {
          const a = await task.approximate.assign(
            centroids,
            k,
            index ?? undefined,
            walk ? (this.graph ?? undefined) : undefined,
          )
          walked &&= a.search === 'walk'
          if (approximateMs) {
            approximateMs.search += a.searchMs
            approximateMs.recall += a.recallMs
          }
          distancesEvaluated += a.distancesEvaluated
          recall = addRecall(recall, a.recall)
          return a.labels
        }
        const a = await (k >= 2 ? task.exact : task.lloyd).assign(centroids, k)
        distancesEvaluated += a.distancesEvaluated
        return a.labels
      }),
    )
    for (const [ti, task] of this.tasks.entries()) {
      points += task.points.length / d
      reassigned += task.sums.update(assigned[ti]!, k)
      // The inertia comes from the sums (O(k·d)): accelerated states skip most exact distances.
      inertia += task.sums.inertia(centroids)
      partials.push(task.sums.partials)
    }
    ms.map = this.now() - t
    if (walkMode) {
      this.lastRecall = recall
      this.lastWalked = walked
    }

    const reduced = await reduceSums(g, req, ops, partials, this.now)
    ms.shuffle = reduced.shuffleMs
    ms.reduce = reduced.reduceMs
    ms.combine = reduced.combineMs
    const full = reduced.full

    const opOf: Record<StageName, number | null> = {
      broadcast: ops.broadcast,
      map: null,
      shuffle: ops.shuffle,
      reduce: ops.reduce,
      combine: ops.combine,
    }
    const stages = {} as IterateResult['stages']
    for (const s of Object.keys(ms) as StageName[]) {
      const op = opOf[s]
      stages[s] = { ms: ms[s], bytes: op === null ? plane.counters.takeOp(-1) : plane.counters.takeOp(op) }
    }
    const result: IterateResult = {
      rank: plane.rank,
      points,
      stages,
      inertia,
      reassigned,
      sparseMessages: reduced.sparseMessages,
      denseMessages: reduced.denseMessages,
      partialBytesSaved: reduced.savedBytes,
      skipped: bc.skipped,
      distancesEvaluated,
      ...(recall ? { recall } : {}),
      ...(approximateMs
        ? { approximateMs, approximateSearch: walked ? ('walk' as const) : ('index' as const) }
        : {}),
      // maxRSS is in kibibytes.
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    }
    return { result, full }
  }

  /** Releases every task's kernel. */
  async dispose(): Promise<void> {
    for (const t of this.tasks) {
      await t.kernel.dispose()
      await t.companion?.dispose()
    }
    this.tasks = []
  }
}
