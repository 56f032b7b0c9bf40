import { availableParallelism } from 'node:os'
import type { StageName } from '@codebook/shared'
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
import { asFloat32, bytesOf } from '../framework/control-channel.ts'
import type { DataPlane } from '../transport/data-plane.ts'
import type { AccelState } from './accel/accel-state.ts'
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
import { createYinyangState } from './accel/yinyang.ts'
import type { KmeansAlgorithm } from './algorithm.ts'
import { type ClusterSums, createClusterSums } from './cluster-sums.ts'
import { decodeCentroids } from './encoding/centroid-encoding.ts'
import { type KernelFactory, kernelFactory as namedKernel } from './kernel-registry.ts'
import type { AssignKernel, DistanceMatrixKernel } from './kernels/assign-kernel.ts'
import type { IterateRequest, IterateResult, LoadRequest } from './kmeans-messages.ts'

interface MapTask {
  points: Float32Array
  /** The task's cluster sums and the labels they follow, kept across iterations. */
  sums: ClusterSums
  kernel: AssignKernel
  /** Bounds state of Hamerly / Yinyang, kept across iterations; null for Lloyd. */
  accel: AccelState | null
  /** The HNSW assignment of `assignment: 'approximate'` (then `accel` is null). */
  approximate: ApproximateState | null
}

/** The kernel as a dense-pass kernel for the accelerated states, if it can return distance blocks. */
function denseKernel(kernel: AssignKernel): DistanceMatrixKernel | undefined {
  const k = kernel as Partial<DistanceMatrixKernel>
  return typeof k.distances === 'function' && typeof k.distanceErrorBound === 'function'
    ? (kernel as DistanceMatrixKernel)
    : undefined
}

/** Creates the bounds state of `algorithm` over a task's points (null for Lloyd). */
function createAccelState(
  algorithm: KmeansAlgorithm,
  points: Float32Array,
  d: number,
  kernel: AssignKernel,
): AccelState | null {
  if (algorithm === 'lloyd') return null
  const n = d === 0 ? 0 : points.length / d
  const dense = denseKernel(kernel)
  return algorithm === 'hamerly'
    ? createHamerlyState(points, n, d, { dense })
    : createYinyangState(points, n, d, { dense })
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
  req: IterateRequest,
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
      g(req.ops.reduce),
      { reduce: req.ops.reduce, combine: req.ops.combine },
      req.root,
      { combiner, value: local, keys: req.k },
      reduction,
      now,
    )
    return { full: r.result, shuffleMs, ...r, savedBytes }
  }
  const r = await regroup(
    g(req.ops.shuffle),
    { shuffle: req.ops.shuffle, reduce: req.ops.reduce },
    partials,
    req.taskCounts,
    req.aggregation,
    combiner,
    req.k,
    now,
  )
  const t = now()
  const full = await combineAtRoot(g(req.ops.combine), req.root, r, req.aggregation, combiner)
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
  async load(req: LoadRequest, blobs: Uint8Array[]): Promise<{ points: number; tasks: number }> {
    await this.dispose()
    let rows: Float32Array
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
        // uint8 (quantised HOG) is widened once here, so kernels only ever see float32.
        rows = raw instanceof Float32Array ? raw : Float32Array.from(raw)
      } finally {
        await f.close()
      }
    }
    this.d = req.d
    const n = req.d === 0 ? 0 : rows.length / req.d
    const factory = this.factory ?? namedKernel(req.kernel ?? 'reference')
    const slots = Math.max(1, req.slots)
    // onnxruntime-node runs a session synchronously on the JS thread (its async `run` is a
    // setImmediate around the native call), so a worker's map tasks take turns: each gets all cores.
    const threads = req.threadsPerTask ?? availableParallelism()
    this.hnsw = req.assignment === 'approximate' ? { threads, ...req.hnsw } : null
    this.graph = null
    this.lastRecall = undefined
    this.lastWalked = false
    const b = blockBounds(n, slots)
    for (let t = 0; t < slots; t++) {
      const pts = rows.subarray(b[t]! * req.d, b[t + 1]! * req.d)
      const kernel = await factory({ threads })
      const taskN = req.d === 0 ? 0 : pts.length / req.d
      const approximate =
        req.assignment === 'approximate'
          ? createApproximateState(pts, taskN, req.d, kernel, {
              recallSample: req.recallSample,
              threads,
              ...req.hnsw,
            })
          : null
      const accel = approximate ? null : createAccelState(req.algorithm ?? 'lloyd', pts, req.d, kernel)
      if (req.k !== undefined) await kernel.prepare?.(req.d, req.k, accel ? accel.kernelPasses : ['assign'])
      this.tasks.push({ points: pts, sums: createClusterSums(pts, req.d), kernel, accel, approximate })
    }
    return { points: n, tasks: this.tasks.length }
  }

  /** Runs one iteration's five stages at this worker. */
  async iterate(
    plane: DataPlane,
    req: IterateRequest,
    blobs: Uint8Array[],
  ): Promise<{ result: IterateResult; blobs: Uint8Array[] }> {
    const { k, d } = req
    if (d !== this.d)
      throw new CodebookError('KMEANS_NOT_LOADED', `worker ${plane.rank}: no partition of width ${d} loaded`)
    const g = (op: number): Group => ({ plane, ranks: req.ranks, op, timeoutMs: req.timeoutMs })
    const me = req.ranks.indexOf(plane.rank)
    const ms: Record<StageName, number> = { broadcast: 0, map: 0, shuffle: 0, reduce: 0, combine: 0 }

    let t = this.now()
    const input = me === req.root ? (blobs[0] ?? new Uint8Array(0)) : null
    const bc = await broadcast(g(req.ops.broadcast), req.root, input, req.broadcast)
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
        if (task.accel && k >= 2) {
          const a = await task.accel.assign(centroids, k)
          distancesEvaluated += a.distancesEvaluated
          return a.labels
        }
        distancesEvaluated += (task.points.length / d) * k
        return (await task.kernel.assign(task.points, centroids, d)).labels
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

    const reduced = await reduceSums(g, req, partials, this.now)
    ms.shuffle = reduced.shuffleMs
    ms.reduce = reduced.reduceMs
    ms.combine = reduced.combineMs
    const full = reduced.full

    const opOf: Record<StageName, number | null> = {
      broadcast: req.ops.broadcast,
      map: null,
      shuffle: req.ops.shuffle,
      reduce: req.ops.reduce,
      combine: req.ops.combine,
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
    return { result, blobs: full ? [bytesOf(full.sums), bytesOf(full.counts)] : [] }
  }

  /** Releases every task's kernel. */
  async dispose(): Promise<void> {
    for (const t of this.tasks) await t.kernel.dispose()
    this.tasks = []
  }
}
