import type { DistanceMatrixKernel, KernelPass } from '../kernels/assign-kernel.ts'

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
 * Per-partition state of an exact accelerated K-means assignment. A map task creates one for
 * the points it owns and calls `assign` once per iteration with the broadcast centroids; the
 * state keeps per-point bounds (O(n) or O(n·t), never n × k) between calls. Labels are exactly
 * the Lloyd labels (nearest centroid by {@link rowDistanceSq}, ties to the lowest index).
 */
export interface AccelState {
  readonly name: string
  readonly n: number
  readonly d: number
  /** The dense kernel's passes this state calls every iteration (what the worker prepares at load). */
  readonly kernelPasses: readonly KernelPass[]
  assign(centroids: Float32Array, k: number): Promise<AccelAssignResult>
  /** Forgets the bounds: the next `assign` starts from a dense pass again. */
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
}

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
