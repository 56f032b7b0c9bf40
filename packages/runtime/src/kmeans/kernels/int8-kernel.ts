import { availableParallelism } from 'node:os'
import * as ort from 'onnxruntime-node'
import { UsageError } from '../../errors.ts'
import type { AssignKernel, AssignResult, NearestBoundsVisitor, NearestTwo } from './assign-kernel.ts'
import {
  buildInt8CandidateModel,
  buildInt8ProductModel,
  INT8_GRAPH_INPUTS,
  INT8_GRAPH_OUTPUTS,
} from './int8-graph.ts'
import { groupLayout } from './ort-kernel.ts'
import { rowDistanceSq } from './reference-kernel.ts'

/*
 * The exact int8 assignment pass for uint8 points.
 *
 * Scores. Each centroid c_j is coded per centroid as ĉ_j = s_j·(q_j − z_j), codes q_jt in
 * [−L, L], zero point z_j (int8), scale s_j (float32); e_j = c_j − ĉ_j is computed exactly in
 * float64. onnxruntime gives, per point x and centroid j, the score
 *   p̃_j = fl(‖c_j‖² − 2·s_j·Σ_t x_t (q_jt − z_j))       (the integer sum is exact, int32)
 * for the true p_j = ‖c_j‖² − 2x·c_j = ‖x − c_j‖² − ‖x‖² (same ranking as the distances).
 *
 * Bound. p̃_j − p_j = 2x·e_j + (float32 rounding), and for any anchor μ (the points' mean)
 *   |x·e_j| = |(x − μ)·e_j + μ·e_j| ≤ ‖x − μ‖·‖e_j‖ + |μ·e_j|          (Cauchy–Schwarz),
 * the rounding of the score is ≤ 4u·(2‖x‖·max‖ĉ‖ + max‖c‖²) (u = 2⁻²⁴: the int32 → float32
 * conversion, the scaling, the float32 ‖c‖² and the addition). So |p̃_j − p_j| ≤ β_j(x) =
 * 2(‖x − μ‖·‖e_j‖ + |μ·e_j|) + F(x), plus a slack σ(x) = 1e-9·(‖x‖ + max‖c‖)² that keeps every
 * decision clear of float64 rounding in the exact distances (`rowDistanceSq`, ≈ 1e-14 relative).
 *
 * Decision, per point, from its `count` smallest scores v_1 ≤ … ≤ v_M: U = min_r (v_r + β_r) is an
 * upper bound on the best true score; a returned centroid is a candidate iff v_r − β_r ≤ U, and
 * every centroid not returned has p ≥ v_M − max_j β_j. One candidate and the rest excluded: that
 * label is certain (every other true score is > U + σ ≥ its score + 2σ). Several: the exact
 * float64 distances (`rowDistanceSq`, the reference's own function) among the candidates decide,
 * ties to the lowest index. Rest not excluded: the point is re-run with a longer list, then, if
 * still not proven, its full exact row. So the labels are always the reference kernel's.
 *
 * Nearest two (`nearestTwoBytes`, Hamerly's full passes). The same with U₂, the second smallest
 * v_r + β_r (an upper bound on the second best true score: two distinct centroids are at most
 * their bounds), in place of U: every centroid outside the candidates v_r − β_r ≤ U₂ (returned or
 * not) is strictly farther than two candidates, so the exact distances among the candidates give
 * the nearest (ties to the lowest index) and the second smallest distance over all k, both the
 * exact float64 `rowDistanceSq` values (error bound 0).
 *
 * Nearest and bounds (`nearestBoundsBytes`, Yinyang's full passes). Labels as for `assignBytes`,
 * and per point lower bounds on every other squared distance from the same list: v_r − β_r + ‖x‖²
 * for each returned centroid, v_M − max_j β_j + ‖x‖² for every centroid not returned (the exact
 * distances of a full row where one was needed).
 */

/** Relative slack given up by every bound (as `BOUND_SLACK` in accel/accel-state.ts). */
const SLACK = 1e-9
const FLOAT32_UNIT_ROUNDOFF = 2 ** -24
/** Padding columns' ‖c‖²: finite and above every real score. */
const PADDING_BIAS = 3e38
/** One block's m × paddedK float32 scores inside onnxruntime stay ≤ 32 Mi floats (as the ORT kernel). */
const MAX_BLOCK_FLOATS = 1 << 25
const DEFAULT_BLOCK_ROWS = 4_096
/** Smallest scores returned per point on the first run. */
const DEFAULT_CANDIDATES = 32
/** Smallest scores per point on the re-run of points whose first list did not exclude the rest. */
const DEFAULT_WIDE_CANDIDATES = 512
/** int32 accumulation of u8 × (s8 − s8 zero point): 255 · 255 · d must stay below 2³¹. */
const MAX_DIMENSION = Math.floor((2 ** 31 - 1) / (255 * 255))

/** Codes of one centroid set and the exact per-centroid quantities the bound needs. */
export interface QuantisedCentroids {
  k: number
  d: number
  /** Codes are in [−levels, levels]: 127 (8-bit) or 63 (7-bit, see {@link probeInt8Saturation}). */
  levels: number
  /** k padded to groups · width (the two-level reduction's layout). */
  paddedK: number
  width: number
  groups: number
  /** d × paddedK, column j = centroid j (MatMulInteger's B layout). */
  codes: Int8Array
  zeroPoints: Int8Array
  /** s_j, float32-exact. */
  scales: Float32Array
  /** ‖e_j‖ = ‖c_j − s_j (q_j − z_j)‖₂, float64 (rounded up by a relative 1e-12). */
  errorNorms: Float64Array
  /** |μ·e_j| for the anchor μ given to {@link quantiseCentroids} (rounded up likewise). */
  anchorDots: Float64Array
  /** ‖c_j‖², float64. */
  normsSq: Float64Array
  maxErrorNorm: number
  maxAnchorDot: number
  /** max_j ‖c_j‖ and max_j ‖ĉ_j‖. */
  maxNorm: number
  maxDequantisedNorm: number
}

const UP = 1 + 1e-12

/**
 * Codes each centroid (row of `centroids`, k × d float32) per centroid into [−levels, levels]
 * with an int8 zero point: the scale is the smallest that fits both the centroid's range
 * (2·levels − 1 steps) and the zero point's reach (|z| ≤ 127 or 128), so a non-negative centroid
 * gets about 2·levels steps over [0, max] rather than levels. `anchor` (d values, float64) is the
 * μ of the bound.
 */
export function quantiseCentroids(
  centroids: Float32Array,
  d: number,
  levels: number,
  anchor: Float64Array,
): QuantisedCentroids {
  const k = centroids.length / d
  const { groups, width, paddedK } = groupLayout(Math.max(k, 2))
  const codes = new Int8Array(d * paddedK)
  const zeroPoints = new Int8Array(paddedK)
  const scales = new Float32Array(k)
  const errorNorms = new Float64Array(k)
  const anchorDots = new Float64Array(k)
  const normsSq = new Float64Array(k)
  let maxErrorNorm = 0
  let maxAnchorDot = 0
  let maxNormSq = 0
  let maxDequantisedSq = 0
  for (let j = 0; j < k; j++) {
    const base = j * d
    let lo = Number.POSITIVE_INFINITY
    let hi = Number.NEGATIVE_INFINITY
    for (let t = 0; t < d; t++) {
      const v = centroids[base + t]
      if (v < lo) lo = v
      if (v > hi) hi = v
    }
    if (!Number.isFinite(lo) || !Number.isFinite(hi))
      throw new UsageError('KERNEL_BAD_CENTROIDS', `int8 kernel: centroid ${j} has a non-finite value`)
    // round(hi/s) − round(lo/s) ≤ 2L and the zero point in [−128, 127] with every code in [−L, L]:
    // (hi − lo)/s ≤ 2L − 1 and |lo|/s, |hi|/s ≤ L + 127 suffice (rounding moves each end ≤ ½).
    const wanted = Math.max((hi - lo) / (2 * levels - 1), hi / (levels + 127), -lo / (levels + 127))
    // The float32 scale at or just above `wanted` (never below: the codes must fit).
    const s = wanted > 0 ? Math.fround(wanted * (1 + 2 ** -22)) : 1
    scales[j] = s
    const a = Math.round(lo / s)
    const b = Math.round(hi / s)
    const zMin = Math.max(-levels - a, -128)
    const zMax = Math.min(levels - b, 127)
    const z = Math.min(zMax, Math.max(zMin, Math.round(-(a + b) / 2)))
    zeroPoints[j] = z
    let errSq = 0
    let dot = 0
    let normSq = 0
    let dequantisedSq = 0
    for (let t = 0; t < d; t++) {
      const v = centroids[base + t]
      const q = Math.min(levels, Math.max(-levels, Math.round(v / s) + z))
      codes[t * paddedK + j] = q
      // Exact in float64: s·(q − z) has ≤ 24 + 9 significant bits, and v − it is exact too.
      const dequantised = s * (q - z)
      const e = v - dequantised
      errSq += e * e
      dot += anchor[t] * e
      normSq += v * v
      dequantisedSq += dequantised * dequantised
    }
    errorNorms[j] = Math.sqrt(errSq) * UP
    anchorDots[j] = Math.abs(dot) * UP + 1e-12 * Math.sqrt(errSq) * norm(anchor)
    normsSq[j] = normSq
    if (errorNorms[j] > maxErrorNorm) maxErrorNorm = errorNorms[j]
    if (anchorDots[j] > maxAnchorDot) maxAnchorDot = anchorDots[j]
    if (normSq > maxNormSq) maxNormSq = normSq
    if (dequantisedSq > maxDequantisedSq) maxDequantisedSq = dequantisedSq
  }
  return {
    k,
    d,
    levels,
    paddedK,
    width,
    groups,
    codes,
    zeroPoints,
    scales,
    errorNorms,
    anchorDots,
    normsSq,
    maxErrorNorm,
    maxAnchorDot,
    maxNorm: Math.sqrt(maxNormSq) * UP,
    maxDequantisedNorm: Math.sqrt(maxDequantisedSq) * UP,
  }
}

function norm(v: Float64Array): number {
  let s = 0
  for (let t = 0; t < v.length; t++) s += v[t] * v[t]
  return Math.sqrt(s)
}

/**
 * The bound of one score, `β_j(x)` in the module comment (σ included): |p̃_j − p_j| + σ(x) ≤ this
 * for a point with ‖x‖ = `pointNorm` and ‖x − μ‖ = `centredNorm`, and a centroid with
 * ‖e_j‖ = `errorNorm`, |μ·e_j| = `anchorDot`. Exported for the tests, which check it against
 * the measured error on worst-case rows.
 */
export function int8ScoreErrorBound(
  q: Pick<QuantisedCentroids, 'maxNorm' | 'maxDequantisedNorm'>,
  pointNorm: number,
  centredNorm: number,
  errorNorm: number,
  anchorDot: number,
): number {
  const rounding = 4 * FLOAT32_UNIT_ROUNDOFF * (2 * pointNorm * q.maxDequantisedNorm + q.maxNorm * q.maxNorm)
  const scale = pointNorm + q.maxNorm
  return (2 * (centredNorm * errorNorm + anchorDot) + rounding) * (1 + SLACK) + SLACK * scale * scale
}

/** The graph's constants for a quantised set: columns scaled by −2·s_j, biased by ‖c_j‖². */
export function int8GraphConstants(q: QuantisedCentroids) {
  const columnScales = new Float32Array(q.paddedK)
  const bias = new Float32Array(q.paddedK).fill(PADDING_BIAS)
  for (let j = 0; j < q.k; j++) {
    columnScales[j] = -2 * q.scales[j]
    bias[j] = q.normsSq[j]
  }
  return {
    d: q.d,
    paddedK: q.paddedK,
    width: q.width,
    codes: q.codes,
    zeroPoints: q.zeroPoints,
    columnScales,
    bias,
  }
}

/** What one {@link Int8Kernel.assignBytes} call did: how many labels the bound decided alone. */
export interface Int8PassStats {
  points: number
  /** Labels proven by the int8 scores alone (one candidate). */
  certain: number
  /** Points settled by exact distances among their candidates (first or wider list). */
  settled: number
  /** Exact distances computed to settle them (each one `rowDistanceSq`). */
  candidateDistances: number
  /** Points re-run with the wider list. */
  widened: number
  /** Points that needed their full exact row (k distances). */
  fullRows: number
  /** Code levels used (127 or 63). */
  levels: number
  /** Quantising, building and creating the session (packing the codes), ms. */
  prepareMs: number
  /** onnxruntime runs, ms. */
  scoreMs: number
  /** Everything else: bounds, exact distances, ms. */
  settleMs: number
}

/** Options of {@link createInt8Kernel}. */
export interface Int8KernelOptions {
  /** Intra-op threads of the session. Default `os.availableParallelism()`. */
  intraOpNumThreads?: number
  /** Rows per run (also capped so a block's m × k scores stay ≤ 32 Mi floats). Default 4,096. */
  blockRows?: number
  /**
   * Code levels: 127 (8-bit codes) or 63 (7-bit). Default: 127 if {@link probeInt8Saturation}
   * finds this machine's u8 × s8 product exact at full range, else 63.
   */
  levels?: 63 | 127
  /** Smallest scores returned per point on the first run. Default 32. */
  candidates?: number
  /** Per point on the re-run of unproven points. Default 512. */
  wideCandidates?: number
}

/** The int8 kernel: {@link AssignKernel} with the uint8 entry point and the last pass's statistics. */
export interface Int8Kernel extends AssignKernel {
  assignBytes(points: Uint8Array, centroids: Float32Array, d: number): Promise<AssignResult>
  readonly levels: number
  readonly intraOpNumThreads: number
  /**
   * Each point's exact nearest centroid (k ≥ 2; ties to the lowest index) and its two smallest
   * squared distances, both the exact float64 `rowDistanceSq` values (`exact`: error bound 0),
   * with every ‖x‖² (exact integers). Hamerly's full passes over uint8 points.
   */
  nearestTwoBytes(points: Uint8Array, centroids: Float32Array, d: number): Promise<NearestTwo>
  /**
   * Each point's exact nearest centroid (ties to the lowest index) and squared distance, with
   * lower bounds on the squared distances to all k centroids, handed to `visit` point by point
   * (module comment). Yinyang's full passes over uint8 points: its group bounds.
   */
  nearestBoundsBytes(
    points: Uint8Array,
    centroids: Float32Array,
    d: number,
    visit: NearestBoundsVisitor,
  ): Promise<void>
  /** Statistics of the last `assign` / `assignBytes` / `nearestTwoBytes` call (null before the first). */
  readonly lastPass: Int8PassStats | null
}

/**
 * Whether onnxruntime's u8 × s8 integer product is exact at full range on this machine: with
 * AVX2 alone MLAS multiplies with `vpmaddubsw`, which adds pairs of u8·s8 products into int16
 * with saturation (255·127·2 = 64,770 > 32,767), so 8-bit codes can give wrong sums; the VNNI
 * kernels (`vpdpbusd`) accumulate into int32 and cannot. 7-bit codes (|q| ≤ 63: 255·63·2 =
 * 32,130) are exact on every path. Runs x = 255, codes = ±127 through the same packed-constant
 * MatMulInteger the kernel uses and compares with the exact sums.
 */
export async function probeInt8Saturation(
  sessionOptions: ort.InferenceSession.SessionOptions = {},
): Promise<boolean> {
  const d = 64
  const k = 16
  const m = 32
  const codes = new Int8Array(d * k)
  // Column j: all +127, all −127, or alternating runs: every pair saturates on a vpmaddubsw path.
  for (let t = 0; t < d; t++)
    for (let j = 0; j < k; j++)
      codes[t * k + j] = j % 3 === 0 ? 127 : j % 3 === 1 ? -127 : (t >> 1) % 2 ? 127 : -127
  const session = await ort.InferenceSession.create(buildInt8ProductModel(d, k, codes), sessionOptions)
  try {
    const x = new Uint8Array(m * d).fill(255)
    const out = await session.run({ X: new ort.Tensor('uint8', x, [m, d]) })
    const y = out.Y.data as Int32Array
    for (let i = 0; i < m; i++)
      for (let j = 0; j < k; j++) {
        let exact = 0
        for (let t = 0; t < d; t++) exact += 255 * codes[t * k + j]
        if (y[i * k + j] !== exact) return true
      }
    return false
  } finally {
    await session.release()
  }
}

/** Is every value of `points` an integer in [0, 255]? Then it can be held as bytes. */
export function isByteValued(points: Float32Array): boolean {
  for (let i = 0; i < points.length; i++) {
    const v = points[i]
    if (!(v >= 0 && v <= 255 && Math.floor(v) === v)) return false
  }
  return true
}

function checkShapes(pointsLength: number, centroids: Float32Array, d: number): { n: number; k: number } {
  if (!Number.isInteger(d) || d < 1)
    throw new UsageError('KERNEL_BAD_DIMENSION', `int8 kernel: d must be a positive integer, got ${d}`)
  if (d > MAX_DIMENSION)
    throw new UsageError(
      'KERNEL_BAD_DIMENSION',
      `int8 kernel: d = ${d} exceeds ${MAX_DIMENSION} (int32 sums)`,
    )
  if (pointsLength % d !== 0 || centroids.length % d !== 0)
    throw new UsageError(
      'KERNEL_BAD_SHAPE',
      `int8 kernel: points (${pointsLength}) and centroids (${centroids.length}) must both be multiples of d = ${d}`,
    )
  const k = centroids.length / d
  if (k < 1) throw new UsageError('KERNEL_NO_CENTROIDS', 'int8 kernel: at least one centroid is needed')
  return { n: pointsLength / d, k }
}

/** Per-dimension mean of the points (the bound's anchor μ), and each point's ‖x‖ and ‖x − μ‖. */
function pointStatistics(points: Uint8Array, n: number, d: number) {
  const sums = new Float64Array(d)
  for (let i = 0; i < n; i++) {
    const base = i * d
    for (let t = 0; t < d; t++) sums[t] += points[base + t]
  }
  const anchor = new Float64Array(d)
  for (let t = 0; t < d; t++) anchor[t] = n > 0 ? sums[t] / n : 0
  const norms = new Float64Array(n)
  const normsSq = new Float64Array(n)
  const centredNorms = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const base = i * d
    let sq = 0
    let centred = 0
    for (let t = 0; t < d; t++) {
      const v = points[base + t]
      sq += v * v // exact: integers below 2⁵³
      const c = v - anchor[t]
      centred += c * c
    }
    normsSq[i] = sq
    norms[i] = Math.sqrt(sq) * UP
    centredNorms[i] = Math.sqrt(centred) * UP
  }
  return { anchor, norms, normsSq, centredNorms }
}

/**
 * Creates the exact int8 kernel. `assignBytes` takes the points as stored (uint8, n × d); `assign`
 * takes float32 points whose values are all integers in [0, 255] (anything else is
 * `KERNEL_NOT_BYTES`) and narrows them to bytes first. One onnxruntime session per call: the
 * codes are the graph's constants (packed once by onnxruntime) and change with the centroids.
 */
export async function createInt8Kernel(options: Int8KernelOptions = {}): Promise<Int8Kernel> {
  const intraOpNumThreads = options.intraOpNumThreads ?? availableParallelism()
  const blockRows = options.blockRows ?? DEFAULT_BLOCK_ROWS
  const firstCount = options.candidates ?? DEFAULT_CANDIDATES
  const wideCount = options.wideCandidates ?? DEFAULT_WIDE_CANDIDATES
  for (const [name, v] of [
    ['intraOpNumThreads', intraOpNumThreads],
    ['blockRows', blockRows],
    ['candidates', firstCount],
    ['wideCandidates', wideCount],
  ] as const)
    if (!Number.isInteger(v) || v < 1)
      throw new UsageError('KERNEL_BAD_OPTION', `int8 kernel: ${name} must be a positive integer, got ${v}`)
  const sessionOptions: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  }
  const levels = options.levels ?? ((await probeInt8Saturation(sessionOptions)) ? 63 : 127)
  let disposed = false
  let lastPass: Int8PassStats | null = null

  /** What {@link scan} found: each point's label and exact nearest distance, with `two` its second too. */
  interface Scanned {
    labels: Int32Array
    nearest: Float64Array
    /** With `two`: the exact second smallest squared distance (else empty). */
    second: Float64Array
    /** ‖x‖² of every point (exact). */
    normsSq: Float64Array
  }

  /**
   * The pass (module comment): with `two` the candidates are those the second best's upper bound
   * U₂ admits, and the second smallest exact distance among them is kept as well; with `bounds`
   * each point's label, exact distance and lower bounds on the others go to it once decided.
   */
  async function scan(
    points: Uint8Array,
    centroids: Float32Array,
    d: number,
    two: boolean,
    bounds?: NearestBoundsVisitor,
  ): Promise<Scanned> {
    if (disposed) throw new UsageError('KERNEL_DISPOSED', 'int8 kernel: used after dispose()')
    const { n, k } = checkShapes(points.length, centroids, d)
    if (two && k < 2)
      throw new UsageError('KERNEL_K_TOO_SMALL', `int8 kernel: nearestTwo needs k >= 2 centroids, got ${k}`)
    const labels = new Int32Array(n)
    const nearest = new Float64Array(n)
    const second = new Float64Array(two ? n : 0).fill(Number.POSITIVE_INFINITY)
    const stats: Int8PassStats = {
      points: n,
      certain: 0,
      settled: 0,
      candidateDistances: 0,
      widened: 0,
      fullRows: 0,
      levels,
      prepareMs: 0,
      scoreMs: 0,
      settleMs: 0,
    }
    lastPass = stats
    if (n === 0) return { labels, nearest, second, normsSq: new Float64Array(0) }
    // The one place a point widens: a float32 copy of a single row, so exact distances are the
    // reference kernel's own `rowDistanceSq` (float32 points with the same integer values).
    const row = new Float32Array(d)
    const widen = (i: number) => {
      const base = i * d
      for (let t = 0; t < d; t++) row[t] = points[base + t]
    }
    const exact = (j: number) => rowDistanceSq(row, 0, centroids, j, d)
    /** Point i's nearest (ties to the lowest index) and second among the listed centroids, exactly (each into `values`, if given). */
    const settleAmong = (i: number, list: ArrayLike<number>, count: number, values?: Float64Array) => {
      let best = Number.POSITIVE_INFINITY
      let bestJ = k
      let next = Number.POSITIVE_INFINITY
      for (let c = 0; c < count; c++) {
        const j = list[c]
        const v = exact(j)
        if (values) values[c] = v
        if (v < best || (v === best && j < bestJ)) {
          next = best
          best = v
          bestJ = j
        } else if (v < next) next = v
      }
      labels[i] = bestJ
      nearest[i] = best
      if (two) second[i] = next
    }
    const everyCentroid = Int32Array.from({ length: k }, (_, j) => j)
    // With `bounds`: a full row's exact distances, or a list's centroids and lower bounds.
    const ids = new Int32Array(k)
    const lowSq = new Float64Array(k)
    const fullRow = (i: number) => {
      widen(i)
      settleAmong(i, everyCentroid, k, bounds && lowSq)
      bounds?.(i, labels[i], nearest[i], everyCentroid, lowSq, k, Number.POSITIVE_INFINITY)
    }
    const t0 = performance.now()
    const { anchor, norms, normsSq, centredNorms } = pointStatistics(points, n, d)
    if (k === 1) {
      for (let i = 0; i < n; i++) {
        widen(i)
        nearest[i] = exact(0)
        bounds?.(i, 0, nearest[i], ids, lowSq, 0, Number.POSITIVE_INFINITY)
      }
      stats.certain = n
      return { labels, nearest, second, normsSq }
    }
    const q = quantiseCentroids(centroids, d, levels, anchor)
    const session = await ort.InferenceSession.create(
      buildInt8CandidateModel(int8GraphConstants(q)),
      sessionOptions,
    )
    stats.prepareMs = performance.now() - t0
    try {
      const step = Math.max(1, Math.min(blockRows, Math.floor(MAX_BLOCK_FLOATS / q.paddedK)))
      const candidates: number[] = []

      /**
       * Runs rows (indices into `points`, or a contiguous range) with `count` scores each and
       * decides every row it can; returns the rows whose list did not exclude the rest.
       */
      async function scoreRows(rows: Int32Array | null, start: number, end: number, count: number) {
        const m = end - start
        let block: Uint8Array
        if (rows === null) block = points.subarray(start * d, end * d)
        else {
          block = new Uint8Array(m * d)
          for (let r = 0; r < m; r++)
            block.set(points.subarray(rows[start + r] * d, (rows[start + r] + 1) * d), r * d)
        }
        const groupCount = Math.min(count, q.groups)
        const s0 = performance.now()
        const out = await session.run({
          [INT8_GRAPH_INPUTS.points]: new ort.Tensor('uint8', block, [m, d]),
          [INT8_GRAPH_INPUTS.count]: new ort.Tensor('int64', BigInt64Array.from([BigInt(count)]), [1]),
          [INT8_GRAPH_INPUTS.groupCount]: new ort.Tensor(
            'int64',
            BigInt64Array.from([BigInt(groupCount)]),
            [1],
          ),
        })
        const s1 = performance.now()
        stats.scoreMs += s1 - s0
        const values = out[INT8_GRAPH_OUTPUTS.values].data as Float32Array
        const slots = out[INT8_GRAPH_OUTPUTS.slots].data as Int32Array
        const groups = out[INT8_GRAPH_OUTPUTS.groups].data as Int32Array
        const unproven: number[] = []
        const width = q.width
        for (let r = 0; r < m; r++) {
          const i = rows === null ? start + r : rows[start + r]
          const xNorm = norms[i]
          const cNorm = centredNorms[i]
          const base = r * count
          // U: the smallest upper bound of a returned score (an upper bound on the best true
          // score); U₂ the second smallest (on the second best's).
          let upper = Number.POSITIVE_INFINITY
          let upper2 = Number.POSITIVE_INFINITY
          // Each returned score's centroid and bound β (kept in lowSq until the bounds below).
          for (let c = 0; c < count; c++) {
            const slot = slots[base + c]
            const j = groups[r * groupCount + Math.floor(slot / width)] * width + (slot % width)
            ids[c] = j
            lowSq[c] = int8ScoreErrorBound(q, xNorm, cNorm, q.errorNorms[j], q.anchorDots[j])
            const b = values[base + c] + lowSq[c]
            if (b < upper) {
              upper2 = upper
              upper = b
            } else if (b < upper2) upper2 = b
          }
          const cut = two ? upper2 : upper
          // Every centroid not returned scores ≥ the last returned value.
          let floor = Number.POSITIVE_INFINITY
          if (count < k) {
            floor =
              values[base + count - 1] - int8ScoreErrorBound(q, xNorm, cNorm, q.maxErrorNorm, q.maxAnchorDot)
            if (!(floor > cut)) {
              unproven.push(i)
              continue
            }
          }
          candidates.length = 0
          for (let c = 0; c < count; c++) if (values[base + c] - lowSq[c] <= cut) candidates.push(ids[c])
          widen(i)
          if (candidates.length === 1) {
            stats.certain++
            labels[i] = candidates[0]
            nearest[i] = exact(candidates[0])
          } else {
            stats.settled++
            stats.candidateDistances += candidates.length
            settleAmong(i, candidates, candidates.length)
          }
          if (bounds) {
            // Squared distance = score + ‖x‖² (exact); every bound gives up its β.
            for (let c = 0; c < count; c++) lowSq[c] = values[base + c] - lowSq[c] + normsSq[i]
            bounds(i, labels[i], nearest[i], ids, lowSq, count, floor + normsSq[i])
          }
        }
        for (const t of Object.values(out)) t.dispose()
        stats.settleMs += performance.now() - s1
        return unproven
      }

      const unproven: number[] = []
      const first = Math.min(firstCount, k)
      for (let start = 0; start < n; start += step)
        for (const i of await scoreRows(null, start, Math.min(n, start + step), first)) unproven.push(i)
      if (unproven.length > 0) {
        const rows = Int32Array.from(unproven)
        stats.widened = rows.length
        const wide = Math.min(wideCount, k)
        const wideStep = Math.max(1, Math.min(step, Math.floor(MAX_BLOCK_FLOATS / q.paddedK)))
        const still: number[] = []
        for (let start = 0; start < rows.length; start += wideStep)
          for (const i of await scoreRows(rows, start, Math.min(rows.length, start + wideStep), wide))
            still.push(i)
        const s0 = performance.now()
        for (const i of still) fullRow(i)
        stats.fullRows = still.length
        stats.settleMs += performance.now() - s0
      }
    } finally {
      await session.release()
    }
    return { labels, nearest, second, normsSq }
  }

  async function assignBytes(points: Uint8Array, centroids: Float32Array, d: number): Promise<AssignResult> {
    const { labels, nearest } = await scan(points, centroids, d, false)
    return { labels, distancesSq: Float32Array.from(nearest) }
  }

  async function nearestTwoBytes(
    points: Uint8Array,
    centroids: Float32Array,
    d: number,
  ): Promise<NearestTwo> {
    const { labels, nearest, second, normsSq } = await scan(points, centroids, d, true)
    const distancesSq = new Float64Array(2 * labels.length)
    for (let i = 0; i < labels.length; i++) {
      distancesSq[2 * i] = nearest[i]
      distancesSq[2 * i + 1] = second[i]
    }
    return { labels, distancesSq, pointNormsSq: normsSq, exact: true }
  }

  return {
    name: 'int8',
    levels,
    intraOpNumThreads,
    get lastPass() {
      return lastPass
    },
    assignBytes,
    nearestTwoBytes,
    async nearestBoundsBytes(points, centroids, d, visit) {
      await scan(points, centroids, d, false, visit)
    },
    async assign(points: Float32Array, centroids: Float32Array, d: number): Promise<AssignResult> {
      if (!isByteValued(points))
        throw new UsageError(
          'KERNEL_NOT_BYTES',
          'int8 kernel: the points must be integers in [0, 255] (uint8 data); use the onnx kernel for other data',
        )
      // Narrowing is exact: every value is an integer in [0, 255].
      return assignBytes(Uint8Array.from(points), centroids, d)
    },
    async dispose(): Promise<void> {
      disposed = true
    },
  }
}
