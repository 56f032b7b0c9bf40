import { UsageError } from '../../errors.ts'
import type {
  AssignKernel,
  DistanceMatrixKernel,
  KernelPass,
  NearestBoundsVisitor,
  NearestTwo,
} from '../kernels/assign-kernel.ts'

/**
 * One iteration's assignment by an accelerated (bounded) algorithm: the labels only. Skipping a
 * point means not knowing its exact distance, so the inertia comes from the cluster sums
 * (see `ClusterSums.inertia`).
 */
export interface AccelAssignResult {
  /** labels[i] is the index of the centroid nearest to point i (ties to the lowest index). */
  labels: Int32Array
  /**
   * Point–centroid distances evaluated this iteration (dense blocks count every entry). Divide
   * by n·k for the fraction reported per iteration.
   */
  distancesEvaluated: number
  /** Centroid–centroid distances evaluated this iteration (Hamerly's s(c); Yinyang's grouping). */
  centroidDistancesEvaluated: number
  /** Points whose label changed since the previous call (all n on the first call). */
  changed: number
}

/**
 * One assignment strategy over a map task's block of points: Lloyd's dense pass, Hamerly,
 * Yinyang, the centroid-neighbourhood re-scan and the approximate (HNSW) assignment all
 * implement it, so a map task runs any of them the same way (as FAISS runs one clustering loop
 * over any index):
 * - `prepare(k)` once at load: the kernel's sessions for the passes the strategy calls;
 * - `assign(centroids, k)` once per iteration: the block's labels. The first call (or one with a
 *   new k, or after `reset`) assigns every point in full; later calls update the state from how
 *   far the centroids moved and re-measure only the points whose bounds fail;
 * - the result reports the distances computed (point–centroid and centroid–centroid).
 *
 * Exact strategies keep per-point bounds (O(n) or O(n·t), never n × k) between calls and
 * return exactly the Lloyd labels (nearest centroid by {@link rowDistanceSq}, ties to the
 * lowest index). `Context` is what a worker builds once per iteration for all its tasks (the
 * approximate assignment's index and graph); `Result` may carry more than the labels.
 */
export interface AccelState<
  Context extends unknown[] = [],
  Result extends AccelAssignResult = AccelAssignResult,
> {
  readonly name: string
  readonly n: number
  readonly d: number
  /** The dense kernel's passes this state calls every iteration (what {@link AccelState.prepare} readies). */
  readonly kernelPasses: readonly KernelPass[]
  /** Readies the kernel for k centroids (its sessions and buffers for `kernelPasses`), before the first iteration. */
  prepare(k: number): Promise<void>
  /** The block's labels for these centroids (k ≥ 1 rows of d), and the distances it computed. */
  assign(centroids: Float32Array, k: number, ...context: Context): Promise<Result>
  /** Forgets the bounds: the next `assign` starts from a full pass again. */
  reset(): void
}

/** Options shared by the accelerated algorithms. */
export interface AccelOptions {
  /**
   * Dense kernel for the first iteration and the batched re-scans of points whose bounds fail.
   * Without one, those passes run in TypeScript: exact, but about 100× slower than BLAS. Labels
   * are exact either way (kernel results are checked against exact distances).
   */
  dense?: DistanceMatrixKernel
  /**
   * Smallest re-scan, in multiply-adds (points · k · d), sent to the dense kernel; smaller ones
   * run in TypeScript. Default {@link DENSE_RESCAN_MIN_WORK}; 0 sends every re-scan to the
   * kernel (tests use it to exercise the dense paths on small data).
   */
  denseMinWork?: number
  /**
   * Hamerly: every point's nearest two for its nearest-two passes over all points (the first full
   * pass and full-pass iterations) instead of `dense.nearestTwo`: the int8 kernel over the same
   * rows held as bytes (`byte-lloyd.ts`, `bytePasses`). Needs a dense kernel with `nearestTwo`
   * (the other passes, and rows for exact ties, stay on it).
   */
  allNearestTwo?: AllNearestTwo
  /**
   * Yinyang: every point's exact nearest centroid and lower bounds on the others for its full
   * passes (its group bounds), instead of the dense kernel's group minima: the int8 kernel over
   * the same rows held as bytes (`bytePasses`). Every other pass stays on the dense kernel.
   */
  allNearestBounds?: AllNearestBounds
}

/**
 * Every point's nearest two from elsewhere than the dense kernel's `nearestTwo` over the float32
 * rows: the int8 kernel's `nearestTwoBytes` over the same rows held as bytes.
 */
export type AllNearestTwo = (centroids: Float32Array, d: number) => Promise<NearestTwo>

/** Every point's exact nearest centroid and bounds on the others, to `visit`: the int8 kernel's `nearestBoundsBytes`. */
export type AllNearestBounds = (
  centroids: Float32Array,
  d: number,
  visit: NearestBoundsVisitor,
) => Promise<void>

/**
 * From this much work (count · k · d multiply-adds) a re-scan is worth a dense kernel call: a
 * call on a few rows costs ~0.4 ms, the TypeScript loop ~2 ns per multiply-add (measured at
 * k = 1,000, d = 128: 4 rows 0.4 vs 1.0 ms, 64 rows 0.8 vs 16 ms; a fixed 64-row threshold left
 * late iterations with ~15 ms of TypeScript re-scans).
 */
export const DENSE_RESCAN_MIN_WORK = 1 << 18

/** Whether re-scanning `count` points over k centroids of dimension d should go to the dense kernel. */
export function denseRescanPays(
  count: number,
  k: number,
  d: number,
  minWork = DENSE_RESCAN_MIN_WORK,
): boolean {
  return count > 0 && count * k * d >= minWork
}

/**
 * Floating-point slack on bound updates. Triangle-inequality bounds hold for exact real
 * distances; the float64 distances differ from them by ~d·2⁻⁵³ relative, so every drift is
 * inflated by this much to keep bounds valid (it costs no measurable pruning).
 */
export const BOUND_SLACK = 1e-9

/** An iteration's {@link AccelAssignResult}: a copy of `labels`, and how many differ from `before`. */
export function iterationResult(
  labels: Int32Array,
  before: Int32Array,
  distancesEvaluated: number,
  centroidDistancesEvaluated = 0,
): AccelAssignResult {
  let changed = 0
  for (let i = 0; i < labels.length; i++) if (labels[i] !== before[i]) changed++
  return { labels: labels.slice(), distancesEvaluated, centroidDistancesEvaluated, changed }
}

/** Checks the shapes shared by every assignment strategy: `points` holds n rows of d. */
export function checkAccelShapes(name: string, points: Float32Array, n: number, d: number): void {
  if (!Number.isInteger(d) || d < 1 || !Number.isInteger(n) || n < 0 || points.length < n * d) {
    throw new UsageError(
      'ACCEL_BAD_SHAPE',
      `${name}: ${points.length} values cannot hold n = ${n} points of d = ${d}`,
    )
  }
}

/** Checks one iteration's centroids: k ≥ 1 rows of d. */
export function checkCentroids(name: string, centroids: Float32Array, k: number, d: number): void {
  if (!Number.isInteger(k) || k < 1 || centroids.length < k * d) {
    throw new UsageError(
      'ACCEL_BAD_CENTROIDS',
      `${name}: ${centroids.length} values cannot hold k = ${k} centroids of d = ${d}`,
    )
  }
}

/** Readies `kernel` for k centroids of dimension d and the listed passes (a no-op without `prepare`). */
export async function prepareKernel(
  kernel: AssignKernel | undefined,
  d: number,
  k: number,
  passes: readonly KernelPass[],
): Promise<void> {
  await kernel?.prepare?.(d, k, passes)
}
