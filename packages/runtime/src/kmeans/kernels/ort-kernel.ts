import { availableParallelism } from 'node:os'
import * as ort from 'onnxruntime-node'
import { UsageError } from '../../errors.ts'
import type {
  AssignResult,
  DistanceMatrixKernel,
  GroupMinima,
  KernelPass,
  NearestM,
  NearestTwo,
  Within,
} from './assign-kernel.ts'
import {
  ASSIGN_GRAPH_INPUTS,
  ASSIGN_GRAPH_OUTPUTS,
  type AssignGraphVariant,
  buildAssignModel,
  LIST_DOTS_INPUTS,
  LIST_DOTS_OUTPUT,
  WITHIN_OUTPUTS,
  WITHIN_THRESHOLD,
} from './onnx-graph.ts'

/** Options of {@link createOrtKernel}. */
export interface OrtKernelOptions {
  /**
   * Intra-op threads of each session: this worker's share of the cores. Default
   * `os.availableParallelism()` (one worker per machine).
   */
  intraOpNumThreads?: number
  /** Rows of X per `run` call. Default 4,096. Also capped so one block's m × k distances stay ≤ 32 Mi floats. */
  blockRows?: number
  /**
   * Let idle ORT threads spin between runs. Default false: with several workers sharing two
   * cores, a spinning pool steals CPU from the others for no gain between blocks.
   */
  allowSpinning?: boolean
}

type OptionalPasses =
  | 'prepare'
  | 'nearestTwo'
  | 'nearestExcluding'
  | 'groupMinima'
  | 'nearestM'
  | 'listDots'
  | 'within'
  | 'withinEither'

/**
 * The ONNX Runtime dense kernel: an {@link DistanceMatrixKernel} whose blocks run at BLAS speed,
 * with every optional pass implemented.
 */
export interface OrtKernel
  extends Omit<DistanceMatrixKernel, OptionalPasses>,
    Required<Pick<DistanceMatrixKernel, OptionalPasses>> {
  /** The thread count the sessions were created with. */
  readonly intraOpNumThreads: number
  /** The configured row block. */
  readonly blockRows: number
  /** Sessions created so far: one per (graph variant, d), however many calls and centroid sets. */
  readonly sessionsCreated: number
}

// 4,096 rows × k = 1,000 keeps a block's distance matrix (16 MB) near cache for ArgMin/ReduceMin:
// measured ~10% faster than 16,384 rows at 100k × 512 × 1,000 on 2 threads (450 vs 505 ms), and 50 MB smaller.
const DEFAULT_BLOCK_ROWS = 4_096
// One block's Gemm output is m × k float32 inside ORT; 32 Mi floats (128 MiB) bounds memory for large k.
const MAX_BLOCK_FLOATS = 1 << 25
const FLOAT32_UNIT_ROUNDOFF = 2 ** -24
// Below this k, blocks grow so that rows × k stays about blockRows × SCALE_FROM_K.
const SCALE_FROM_K = 1_024

/** Columns per group of the `within` graph: its `Less` + `NonZero` run over k / 32 group minima, not k values. */
const WITHIN_GROUP = 32

/** From this k on, `assign` runs the two-level (grouped) graph; below it the flat one is faster. */
export const GROUPED_ASSIGN_MIN_K = 256
/** From this k on, `nearestTwo` runs the two-level (grouped) graph (measured crossover ~800). */
export const GROUPED_NEAREST_TWO_MIN_K = 768

/**
 * How the two-level graphs split a row of k distances: `groups` groups of `width` contiguous
 * columns, k padded up to groups · width. Both ≥ 2 (the nearest-two graph takes the two best
 * groups and the two best columns of one group); width ≈ √k balances the group-minimum pass
 * against the exact argmin inside the best group.
 */
export function groupLayout(k: number): { groups: number; width: number; paddedK: number } {
  const width = Math.max(2, Math.round(Math.sqrt(k)))
  const groups = Math.max(2, Math.ceil(k / width))
  return { groups, width, paddedK: groups * width }
}

// A padding row's ‖c‖²: finite (no Inf − Inf anywhere) and far above any real squared distance,
// so a padding row is never the nearest or second nearest (k ≥ 2 real rows for nearest-two).
const PADDING_NORM_SQ = 3e38

/** ‖c‖² of every centroid, summed in float64 then stored as float32 (the graph's input type). */
export function centroidNormsSq(centroids: Float32Array, k: number, d: number): Float32Array {
  const out = new Float32Array(k)
  for (let j = 0; j < k; j++) {
    let s = 0
    const base = j * d
    for (let t = 0; t < d; t++) s += centroids[base + t] * centroids[base + t]
    out[j] = s
  }
  return out
}

/** ‖x‖² of each float32 row, in float64. */
function rowNormsSqOf(points: Float32Array, n: number, d: number): Float64Array {
  const out = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    let s = 0
    for (let t = i * d; t < i * d + d; t++) s += (points[t] as number) * (points[t] as number)
    out[i] = s
  }
  return out
}

/**
 * The `within` thresholds of rows [start, end) per column group: max(the row's threshold, the
 * group's radius² − ‖x‖²), the latter nudged up by 2⁻²⁰ of its terms so float32 never lowers it.
 */
function pairThresholds(
  thresholds: Float32Array,
  pointNormsSq: Float64Array,
  groupRadiusSq: Float64Array,
  start: number,
  end: number,
): Float32Array {
  const groups = groupRadiusSq.length
  const out = new Float32Array((end - start) * groups)
  for (let r = start; r < end; r++) {
    const xn = pointNormsSq[r] as number
    const own = thresholds[r] as number
    for (let g = 0; g < groups; g++) {
      const radiusSq = groupRadiusSq[g] as number
      const column = radiusSq === Number.NEGATIVE_INFINITY ? own : radiusSq - xn + (radiusSq + xn) * 2 ** -20
      out[(r - start) * groups + g] = Math.max(column, own)
    }
  }
  return out
}

/**
 * Worst-case error of one float32 expanded distance ‖x‖² − 2x·c + ‖c‖²: each length-d dot
 * product in float32 is within γ_d·‖x‖‖c‖ (γ_d ≈ d·2⁻²⁴, any summation order), plus a few
 * roundings of the sums; all are bounded by multiples of (‖x‖ + ‖c‖)². Typical errors are far
 * smaller (blocked summation); this bound is what keeps accelerated lower bounds valid.
 */
export function float32ExpansionErrorBound(
  pointNormSq: number,
  maxCentroidNormSq: number,
  d: number,
): number {
  const scale = Math.sqrt(pointNormSq) + Math.sqrt(maxCentroidNormSq)
  return (2 * d + 8) * FLOAT32_UNIT_ROUNDOFF * 1.01 * scale * scale
}

function checkShapes(points: Float32Array, centroids: Float32Array, d: number): { n: number; k: number } {
  if (!Number.isInteger(d) || d < 1)
    throw new UsageError('KERNEL_BAD_DIMENSION', `ort kernel: d must be a positive integer, got ${d}`)
  if (points.length % d !== 0 || centroids.length % d !== 0) {
    throw new UsageError(
      'KERNEL_BAD_SHAPE',
      `ort kernel: points (${points.length}) and centroids (${centroids.length}) must both be multiples of d = ${d}`,
    )
  }
  const k = centroids.length / d
  if (k < 1) throw new UsageError('KERNEL_NO_CENTROIDS', 'ort kernel: at least one centroid is needed')
  return { n: points.length / d, k }
}

/**
 * Creates the dense assignment kernel on onnxruntime-node. One session per (d, graph variant)
 * is created lazily and reused for every call and iteration; centroids and their norms are
 * fed per call, so changing centroids (or k) never rebuilds a session.
 */
export async function createOrtKernel(options: OrtKernelOptions = {}): Promise<OrtKernel> {
  const intraOpNumThreads = options.intraOpNumThreads ?? availableParallelism()
  const blockRows = options.blockRows ?? DEFAULT_BLOCK_ROWS
  if (!Number.isInteger(intraOpNumThreads) || intraOpNumThreads < 1) {
    throw new UsageError(
      'KERNEL_BAD_THREADS',
      `ort kernel: intraOpNumThreads must be a positive integer, got ${intraOpNumThreads}`,
    )
  }
  if (!Number.isInteger(blockRows) || blockRows < 1) {
    throw new UsageError(
      'KERNEL_BAD_BLOCK',
      `ort kernel: blockRows must be a positive integer, got ${blockRows}`,
    )
  }
  const sessionOptions: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads,
    // One graph, one path: inter-op parallelism would only add threads competing for the same cores.
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    extra: { session: { intra_op: { allow_spinning: options.allowSpinning ? '1' : '0' } } },
  }
  const sessions = new Map<string, Promise<ort.InferenceSession>>()
  let disposed = false
  let released = 0

  function session(d: number, variant: AssignGraphVariant): Promise<ort.InferenceSession> {
    if (disposed) throw new UsageError('KERNEL_DISPOSED', 'ort kernel: used after dispose()')
    const key = `${variant}:${d}`
    let s = sessions.get(key)
    if (s === undefined) {
      s = ort.InferenceSession.create(buildAssignModel(d, variant), sessionOptions)
      sessions.set(key, s)
    }
    return s
  }

  /**
   * Rows per `run`: `blockRows` at k ≥ 1,024, proportionally more for fewer centroids so a block's
   * distances stay ~4 Mi floats (a run's fixed cost, ~1 ms with thread wake-ups, would otherwise
   * dominate the moved-set passes over a few dozen centroids: 25 runs for 100k points).
   */
  function rowsPerBlock(k: number): number {
    const scaled = blockRows * Math.max(1, Math.floor(SCALE_FROM_K / k))
    return Math.max(1, Math.min(scaled, Math.floor(MAX_BLOCK_FLOATS / k)))
  }

  function feeds(points: Float32Array, start: number, end: number, d: number, c: ort.Tensor, cn: ort.Tensor) {
    const x = new ort.Tensor('float32', points.subarray(start * d, end * d), [end - start, d])
    return {
      [ASSIGN_GRAPH_INPUTS.points]: x,
      [ASSIGN_GRAPH_INPUTS.centroids]: c,
      [ASSIGN_GRAPH_INPUTS.centroidNormsSq]: cn,
    }
  }

  /** C and cNorm with rows k … paddedK − 1 as padding (zero rows, ‖c‖² = {@link PADDING_NORM_SQ}). */
  function paddedCentroidFeeds(centroids: Float32Array, k: number, d: number, paddedK: number) {
    const padded = new Float32Array(paddedK * d)
    padded.set(centroids.subarray(0, k * d))
    const norms = new Float32Array(paddedK).fill(PADDING_NORM_SQ)
    norms.set(centroidNormsSq(centroids, k, d))
    return {
      c: new ort.Tensor('float32', padded, [paddedK, d]),
      cn: new ort.Tensor('float32', norms, [paddedK]),
    }
  }

  /**
   * The centroid inputs of an `assign` / `nearest-two` graph: as given for the flat graph, or
   * padded to the group layout, plus its shape, for the grouped one (from `groupedFromK` on).
   */
  function centroidFeeds(centroids: Float32Array, k: number, d: number, groupedFromK: number) {
    if (k < groupedFromK) {
      return {
        grouped: false,
        c: new ort.Tensor('float32', centroids, [k, d]),
        cn: new ort.Tensor('float32', centroidNormsSq(centroids, k, d), [k]),
        extra: {} as Record<string, ort.Tensor>,
        paddedK: k,
      }
    }
    const { groups, width, paddedK } = groupLayout(k)
    return {
      grouped: true,
      ...paddedCentroidFeeds(centroids, k, d, paddedK),
      extra: {
        [ASSIGN_GRAPH_INPUTS.groupShape]: new ort.Tensor(
          'int64',
          BigInt64Array.from([0n, BigInt(groups), BigInt(width)]),
          [3],
        ),
      },
      paddedK,
    }
  }

  /** `within` and `withinEither` (with column radii). */
  async function findWithin(
    points: Float32Array,
    centroids: Float32Array,
    thresholds: Float32Array,
    d: number,
    columnRadiusSq?: Float64Array,
  ): Promise<Within> {
    const { n, k } = checkShapes(points, centroids, d)
    if (thresholds.length !== n || (columnRadiusSq !== undefined && columnRadiusSq.length !== k))
      throw new UsageError(
        'KERNEL_BAD_SHAPE',
        `ort kernel: within needs one threshold per point (${n}) and at most one radius² per centroid (${k}), got ${thresholds.length} and ${columnRadiusSq?.length ?? 'none'}`,
      )
    const rowStart = new Int32Array(n + 1)
    const columns: number[] = []
    const values: number[] = []
    if (n > 0) {
      const s = await session(d, 'within')
      const { c, cn } = paddedCentroidFeeds(centroids, k, d, Math.ceil(k / WITHIN_GROUP) * WITHIN_GROUP)
      const groups = Math.ceil(k / WITHIN_GROUP)
      // With column radii a group is kept when its minimum is below max(row threshold, group
      // radius² − ‖x‖²): the group's largest radius², nudged up past float32 rounding.
      const groupRadiusSq = columnRadiusSq && new Float64Array(groups).fill(Number.NEGATIVE_INFINITY)
      if (columnRadiusSq && groupRadiusSq)
        for (let j = 0; j < k; j++) {
          const g = Math.floor(j / WITHIN_GROUP)
          groupRadiusSq[g] = Math.max(groupRadiusSq[g] as number, columnRadiusSq[j] as number)
        }
      const pointNormsSq = columnRadiusSq ? rowNormsSqOf(points, n, d) : undefined
      const shape = new ort.Tensor(
        'int64',
        BigInt64Array.from([0n, BigInt(groups), BigInt(WITHIN_GROUP)]),
        [3],
      )
      const step = rowsPerBlock(groups * WITHIN_GROUP)
      for (let start = 0; start < n; start += step) {
        const end = Math.min(n, start + step)
        const out = await s.run({
          ...feeds(points, start, end, d, c, cn),
          [WITHIN_THRESHOLD]:
            groupRadiusSq && pointNormsSq
              ? new ort.Tensor(
                  'float32',
                  pairThresholds(thresholds, pointNormsSq, groupRadiusSq, start, end),
                  [end - start, groups],
                )
              : new ort.Tensor('float32', thresholds.subarray(start, end), [end - start, 1]),
          [ASSIGN_GRAPH_INPUTS.groupShape]: shape,
        })
        const pairs = out[WITHIN_OUTPUTS.pairs].data as Int32Array
        const groupValues = out[WITHIN_OUTPUTS.partial].data as Float32Array
        const count = pairs.length / 2
        // NonZero is row-major: each row's groups come contiguous and ascending, so do its columns.
        for (let e = 0; e < count; e++) {
          const row = start + (pairs[e] as number)
          const threshold = thresholds[row] as number
          const xn = pointNormsSq?.[row] as number
          const first = (pairs[count + e] as number) * WITHIN_GROUP
          for (let t = 0; t < WITHIN_GROUP && first + t < k; t++) {
            const v = groupValues[e * WITHIN_GROUP + t] as number
            if (!(v < threshold) && !(columnRadiusSq && xn + v < (columnRadiusSq[first + t] as number)))
              continue
            columns.push(first + t)
            values.push(v)
            rowStart[row + 1]++
          }
        }
        for (const t of Object.values(out)) t.dispose()
      }
    }
    for (let r = 0; r < n; r++) rowStart[r + 1] += rowStart[r]
    return { rowStart, columns: Int32Array.from(columns), partial: Float32Array.from(values) }
  }

  const kernel: OrtKernel = {
    name: 'ort',
    intraOpNumThreads,
    blockRows,
    get sessionsCreated() {
      return sessions.size + released
    },

    /**
     * Creates the session of each listed pass for (d, k) and runs it once on a zero block of the
     * size it will use (for `nearestExcluding`, a moved set of k / 8): session creation (~40 ms for
     * the first) and a first run's buffers (~30 ms) otherwise land in the first iterations. Only
     * the listed passes: each session keeps its own buffers (up to 128 MiB at large k).
     */
    async prepare(d: number, k: number, passes: readonly KernelPass[]): Promise<void> {
      if (!Number.isInteger(d) || d < 1 || !Number.isInteger(k) || k < 1) return
      const zeros = (rows: number) => new Float32Array(rows * d)
      if (passes.includes('assign')) await kernel.assign(zeros(rowsPerBlock(k)), zeros(k), d)
      if (passes.includes('nearestTwo') && k >= 2)
        await kernel.nearestTwo(zeros(rowsPerBlock(k)), zeros(k), d)
      if (passes.includes('nearestExcluding')) {
        const moved = Math.max(2, Math.floor(k / 8))
        const rows = rowsPerBlock(moved + 1)
        await kernel.nearestExcluding(
          zeros(rows),
          zeros(moved),
          new Int32Array(rows).fill(moved),
          new Float32Array(rows),
          d,
        )
      }
    },

    async assign(points: Float32Array, centroids: Float32Array, d: number): Promise<AssignResult> {
      const { n, k } = checkShapes(points, centroids, d)
      const labels = new Int32Array(n)
      const distancesSq = new Float32Array(n)
      if (n === 0) return { labels, distancesSq }
      const { grouped, c, cn, extra, paddedK } = centroidFeeds(centroids, k, d, GROUPED_ASSIGN_MIN_K)
      const s = await session(d, grouped ? 'assign-grouped' : 'assign')
      const step = rowsPerBlock(paddedK)
      for (let start = 0; start < n; start += step) {
        const end = Math.min(n, start + step)
        const out = await s.run({ ...feeds(points, start, end, d, c, cn), ...extra })
        labels.set(out[ASSIGN_GRAPH_OUTPUTS.labels].data as Int32Array, start)
        const mins = out[ASSIGN_GRAPH_OUTPUTS.minDistSq].data as Float32Array
        // Cancellation in the expansion can leave a true 0 (a point on its centroid) slightly negative.
        for (let i = 0; i < mins.length; i++) distancesSq[start + i] = Math.max(mins[i], 0)
        for (const t of Object.values(out)) t.dispose()
      }
      return { labels, distancesSq }
    },

    async distances(points: Float32Array, centroids: Float32Array, d: number): Promise<Float32Array> {
      const { n, k } = checkShapes(points, centroids, d)
      if (n === 0) return new Float32Array(0)
      const s = await session(d, 'distances')
      const c = new ort.Tensor('float32', centroids, [k, d])
      const cn = new ort.Tensor('float32', centroidNormsSq(centroids, k, d), [k])
      const step = rowsPerBlock(k)
      if (n <= step) {
        // One block (the accelerated algorithms' usual call): clamp ORT's own output in place, no copy.
        const out = await s.run(feeds(points, 0, n, d, c, cn))
        const block = out[ASSIGN_GRAPH_OUTPUTS.distSq].data as Float32Array
        for (let i = 0; i < block.length; i++) if (block[i] < 0) block[i] = 0
        return block
      }
      const result = new Float32Array(n * k)
      for (let start = 0; start < n; start += step) {
        const end = Math.min(n, start + step)
        const out = await s.run(feeds(points, start, end, d, c, cn))
        const block = out[ASSIGN_GRAPH_OUTPUTS.distSq].data as Float32Array
        const offset = start * k
        for (let i = 0; i < block.length; i++) result[offset + i] = Math.max(block[i], 0)
        for (const t of Object.values(out)) t.dispose()
      }
      return result
    },

    async nearestTwo(points: Float32Array, centroids: Float32Array, d: number): Promise<NearestTwo> {
      const { n, k } = checkShapes(points, centroids, d)
      if (k < 2)
        throw new UsageError('KERNEL_K_TOO_SMALL', `ort kernel: nearestTwo needs k >= 2 centroids, got ${k}`)
      const labels = new Int32Array(n)
      const distancesSq = new Float32Array(2 * n)
      const pointNormsSq = new Float32Array(n)
      if (n === 0) return { labels, distancesSq, pointNormsSq }
      const { grouped, c, cn, extra, paddedK } = centroidFeeds(centroids, k, d, GROUPED_NEAREST_TWO_MIN_K)
      const s = await session(d, grouped ? 'nearest-two-grouped' : 'nearest-two')
      const step = rowsPerBlock(paddedK)
      for (let start = 0; start < n; start += step) {
        const end = Math.min(n, start + step)
        const out = await s.run({ ...feeds(points, start, end, d, c, cn), ...extra })
        labels.set(out[ASSIGN_GRAPH_OUTPUTS.top2Labels].data as Int32Array, start)
        pointNormsSq.set(out[ASSIGN_GRAPH_OUTPUTS.pointNormSq].data as Float32Array, start)
        const values = out[ASSIGN_GRAPH_OUTPUTS.top2DistSq].data as Float32Array
        for (let i = 0; i < values.length; i++) distancesSq[2 * start + i] = Math.max(values[i], 0)
        for (const t of Object.values(out)) t.dispose()
      }
      return { labels, distancesSq, pointNormsSq }
    },

    async nearestM(
      points: Float32Array,
      centroids: Float32Array,
      count: number,
      d: number,
    ): Promise<NearestM> {
      const { n, k } = checkShapes(points, centroids, d)
      if (!Number.isInteger(count) || count < 1 || count > k)
        throw new UsageError(
          'KERNEL_BAD_COUNT',
          `ort kernel: nearestM needs 1 ≤ count ≤ k = ${k}, got ${count}`,
        )
      const indices = new Int32Array(n * count)
      const distancesSq = new Float32Array(n * count)
      if (n === 0) return { indices, distancesSq }
      const s = await session(d, 'nearest-m')
      const c = new ort.Tensor('float32', centroids, [k, d])
      const cn = new ort.Tensor('float32', centroidNormsSq(centroids, k, d), [k])
      const m = new ort.Tensor('int64', BigInt64Array.from([BigInt(count)]), [1])
      const step = rowsPerBlock(k)
      for (let start = 0; start < n; start += step) {
        const end = Math.min(n, start + step)
        const out = await s.run({ ...feeds(points, start, end, d, c, cn), [ASSIGN_GRAPH_INPUTS.count]: m })
        indices.set(out[ASSIGN_GRAPH_OUTPUTS.nearestMIndex].data as Int32Array, start * count)
        const values = out[ASSIGN_GRAPH_OUTPUTS.nearestMDistSq].data as Float32Array
        for (let i = 0; i < values.length; i++) distancesSq[start * count + i] = Math.max(values[i], 0)
        for (const t of Object.values(out)) t.dispose()
      }
      return { indices, distancesSq }
    },

    async nearestExcluding(
      points: Float32Array,
      centroids: Float32Array,
      exclude: Int32Array,
      pointNormsSq: Float32Array | Float64Array,
      d: number,
    ): Promise<Float32Array> {
      const { n, k } = checkShapes(points, centroids, d)
      if (exclude.length !== n || pointNormsSq.length !== n)
        throw new UsageError(
          'KERNEL_BAD_SHAPE',
          `ort kernel: nearestExcluding needs one exclude index and one ‖x‖² per point (${n}), got ${exclude.length} and ${pointNormsSq.length}`,
        )
      for (let i = 0; i < n; i++)
        if (!(exclude[i] >= 0 && exclude[i] <= k))
          throw new UsageError(
            'KERNEL_BAD_EXCLUDE',
            `ort kernel: exclude[${i}] = ${exclude[i]} is outside [0, ${k}] (k excludes none)`,
          )
      const out = new Float32Array(n)
      if (n === 0) return out
      // Row k pads C so that "exclude none" (k) still masks a real column of the Gemm.
      const { c, cn } = paddedCentroidFeeds(centroids, k, d, k + 1)
      const s = await session(d, 'nearest-excluding')
      const step = rowsPerBlock(k + 1)
      for (let start = 0; start < n; start += step) {
        const end = Math.min(n, start + step)
        const result = await s.run({
          ...feeds(points, start, end, d, c, cn),
          [ASSIGN_GRAPH_INPUTS.exclude]: new ort.Tensor('int32', exclude.subarray(start, end), [
            end - start,
            1,
          ]),
        })
        const partial = result[ASSIGN_GRAPH_OUTPUTS.excludedMinPartial].data as Float32Array
        for (let i = 0; i < partial.length; i++)
          out[start + i] = Math.max(0, partial[i] + pointNormsSq[start + i])
        for (const t of Object.values(result)) t.dispose()
      }
      return out
    },

    within: (points, centroids, thresholds, d) => findWithin(points, centroids, thresholds, d),

    withinEither: (points, centroids, thresholds, columnRadiusSq, d) =>
      findWithin(points, centroids, thresholds, d, columnRadiusSq),

    async listDots(
      points: Float32Array,
      centroids: Float32Array,
      pointIndex: Int32Array,
      listIndex: Int32Array,
      groups: number,
      d: number,
    ): Promise<Float32Array> {
      const { n, k } = checkShapes(points, centroids, d)
      const perGroup = groups > 0 ? pointIndex.length / groups : 0
      const listLength = groups > 0 ? listIndex.length / groups : 0
      if (
        !Number.isInteger(groups) ||
        groups < 0 ||
        !Number.isInteger(perGroup) ||
        !Number.isInteger(listLength) ||
        pointIndex.some((i) => !(i >= 0 && i < n)) ||
        listIndex.some((j) => !(j >= 0 && j < k))
      )
        throw new UsageError(
          'KERNEL_BAD_SHAPE',
          `ort kernel: listDots needs ${groups} groups of point rows (< ${n}) and centroid rows (< ${k}), got ${pointIndex.length} and ${listIndex.length}`,
        )
      if (groups === 0 || perGroup === 0 || listLength === 0)
        return new Float32Array(groups * perGroup * listLength)
      const s = await session(d, 'list-dots')
      const out = await s.run({
        [LIST_DOTS_INPUTS.points]: new ort.Tensor('float32', points, [n, d]),
        [LIST_DOTS_INPUTS.centroids]: new ort.Tensor('float32', centroids, [k, d]),
        [LIST_DOTS_INPUTS.pointIndex]: new ort.Tensor('int32', pointIndex, [groups, perGroup]),
        [LIST_DOTS_INPUTS.listIndex]: new ort.Tensor('int32', listIndex, [groups, listLength]),
      })
      return out[LIST_DOTS_OUTPUT].data as Float32Array
    },

    async groupMinima(
      points: Float32Array,
      centroids: Float32Array,
      centroidNormsSq: Float32Array,
      groups: number,
      d: number,
    ): Promise<GroupMinima> {
      const { n, k } = checkShapes(points, centroids, d)
      if (!Number.isInteger(groups) || groups < 1 || k % groups !== 0 || centroidNormsSq.length !== k)
        throw new UsageError(
          'KERNEL_BAD_GROUPS',
          `ort kernel: ${k} centroid rows (${centroidNormsSq.length} norms) are not ${groups} equal groups`,
        )
      const t = groups
      const nearest = new Int32Array(n)
      const nearestSq = new Float32Array(n)
      const groupMinSq = new Float32Array(t * n)
      if (n === 0) return { nearest, nearestSq, groupMinSq }
      const s = await session(d, 'group-two')
      const c = new ort.Tensor('float32', centroids, [k, d])
      const cn = new ort.Tensor('float32', centroidNormsSq, [k])
      const shape = new ort.Tensor('int64', BigInt64Array.from([0n, BigInt(k / t), BigInt(t)]), [3])
      const step = rowsPerBlock(k)
      for (let start = 0; start < n; start += step) {
        const end = Math.min(n, start + step)
        const out = await s.run({
          ...feeds(points, start, end, d, c, cn),
          [ASSIGN_GRAPH_INPUTS.groupShape]: shape,
        })
        nearest.set(out[ASSIGN_GRAPH_OUTPUTS.groupNearestIndex].data as Int32Array, start)
        nearestSq.set(out[ASSIGN_GRAPH_OUTPUTS.groupNearestDistSq].data as Float32Array, start)
        groupMinSq.set(out[ASSIGN_GRAPH_OUTPUTS.groupMinDistSq].data as Float32Array, t * start)
        for (const x of Object.values(out)) x.dispose()
      }
      return { nearest, nearestSq, groupMinSq }
    },

    distanceErrorBound: float32ExpansionErrorBound,

    async dispose(): Promise<void> {
      disposed = true
      const all = [...sessions.values()]
      released += all.length
      sessions.clear()
      for (const s of all) await (await s).release()
    },
  }
  return kernel
}
