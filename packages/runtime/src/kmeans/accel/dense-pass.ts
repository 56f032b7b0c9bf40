import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { type AllNearestTwo, BOUND_SLACK } from './accel-state.ts'

/**
 * Receives one point's row of squared distances to all k centroids. `row[offset + j]` is within
 * `errorBound` of the exact {@link rowDistanceSq} value (0 when the row was computed exactly).
 */
export type DistanceRowVisitor = (
  i: number,
  row: Float32Array | Float64Array,
  offset: number,
  errorBound: number,
) => void

// 4 Mi floats (16 MiB) per dense block: large enough for BLAS efficiency, small next to the data.
const DENSE_BLOCK_FLOATS = 1 << 22

/** ‖row‖² of every row of a row-major matrix (float64). */
export function rowNormsSq(values: Float32Array, rows: number, d: number): Float64Array {
  const out = new Float64Array(rows)
  const zero = new Float32Array(d)
  for (let i = 0; i < rows; i++) out[i] = rowDistanceSq(values, i, zero, 0, d)
  return out
}

/** Largest ‖c‖² over the centroids. */
export function maxRowNormSq(values: Float32Array, rows: number, d: number): number {
  let m = 0
  const norms = rowNormsSq(values, rows, d)
  for (let j = 0; j < rows; j++) if (norms[j] > m) m = norms[j]
  return m
}

/**
 * Computes the rows of squared distances for the points listed in `indices` (all points when
 * null) and hands each to `visit`. With a dense kernel, rows come from BLAS blocks with their
 * error bound; without one, each row is computed exactly in TypeScript. `pointNormsSq` (‖x‖² of
 * every point, by index) saves recomputing them per call: an n·d loop in TypeScript costs about as
 * much as the dense block itself. Returns the number of point–centroid distances evaluated.
 */
export async function forEachDistanceRow(
  points: Float32Array,
  n: number,
  d: number,
  centroids: Float32Array,
  k: number,
  indices: Int32Array | null,
  dense: DistanceMatrixKernel | undefined,
  visit: DistanceRowVisitor,
  pointNormsSq?: Float64Array,
): Promise<number> {
  const count = indices === null ? n : indices.length
  if (count === 0) return 0
  if (dense === undefined) {
    const row = new Float64Array(k)
    for (let r = 0; r < count; r++) {
      const i = indices === null ? r : indices[r]
      for (let j = 0; j < k; j++) row[j] = rowDistanceSq(points, i, centroids, j, d)
      visit(i, row, 0, 0)
    }
    return count * k
  }
  const maxCentroidNormSq = maxRowNormSq(centroids, k, d)
  const blockRows = Math.max(1, Math.floor(DENSE_BLOCK_FLOATS / k))
  const gather = indices === null ? null : new Float32Array(Math.min(blockRows, count) * d)
  for (let start = 0; start < count; start += blockRows) {
    const end = Math.min(count, start + blockRows)
    const block = listedRows(points, d, indices, gather, start, end)
    const dist = await dense.distances(block, centroids, d)
    const blockNorms = pointNormsSq === undefined ? rowNormsSq(block, end - start, d) : null
    for (let r = start; r < end; r++) {
      const i = indices === null ? r : indices[r]
      const normSq = blockNorms === null ? (pointNormsSq as Float64Array)[i] : blockNorms[r - start]
      visit(i, dist, (r - start) * k, dense.distanceErrorBound(normSq, maxCentroidNormSq, d))
    }
  }
  return count * k
}

/**
 * Rows [start, end) of the listed points (all points when `indices` is null) as one contiguous
 * block: a view when all points are listed (their rows are already contiguous, no copy), else
 * gathered into `gather`.
 */
function listedRows(
  points: Float32Array,
  d: number,
  indices: Int32Array | null,
  gather: Float32Array | null,
  start: number,
  end: number,
): Float32Array {
  if (indices === null || gather === null) return points.subarray(start * d, end * d)
  // Runs of consecutive indices are copied in one call (early iterations list most points).
  let r = start
  while (r < end) {
    let e = r + 1
    while (e < end && indices[e] === indices[e - 1] + 1) e++
    gather.set(points.subarray(indices[r] * d, (indices[e - 1] + 1) * d), (r - start) * d)
    r = e
  }
  return gather.subarray(0, (end - start) * d)
}

/** Distance each centroid moved since the previous iteration (not squared). */
export function centroidDrift(
  previous: Float32Array,
  current: Float32Array,
  k: number,
  d: number,
): Float64Array {
  const drift = new Float64Array(k)
  for (let j = 0; j < k; j++) drift[j] = Math.sqrt(rowDistanceSq(previous, j, current, j, d))
  return drift
}

/**
 * Moves a lower bound down by a centroid drift, keeping it valid under rounding: the
 * triangle inequality holds for exact distances, and float64 distances differ from those by
 * ~d·2⁻⁵³ relative, so the bound also gives up {@link BOUND_SLACK} of its size.
 */
export function loosenLowerBound(bound: number, drift: number): number {
  return bound * (1 - BOUND_SLACK) - drift * (1 + BOUND_SLACK)
}

/** Receives a point's nearest centroid, the (approximate) squared distances to its nearest two, and its ‖x‖². */
export type NearestTwoVisitor = (
  i: number,
  label: number,
  nearestSq: number,
  secondSq: number,
  errorBound: number,
  pointNormSq: number,
) => void

// Rows gathered per nearestTwo call: the kernel blocks further inside; this bounds the copy.
const NEAREST_TWO_GATHER_ROWS = 16_384

/**
 * The nearest two centroids of the listed points (all of `points` when null) through a kernel's `nearestTwo` (k ≥ 2),
 * with the kernel's error bound per point (`pointNormsSq` as in {@link forEachDistanceRow}; 0 when
 * the result says it is `exact`). With every point listed and `all` given, `all` measures them
 * instead. Returns the number of distances evaluated (k per point).
 */
export async function forEachNearestTwo(
  points: Float32Array,
  d: number,
  centroids: Float32Array,
  k: number,
  indices: Int32Array | null,
  dense: DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestTwo'>>,
  visit: NearestTwoVisitor,
  pointNormsSq?: Float64Array,
  all?: AllNearestTwo,
): Promise<number> {
  const count = indices === null ? points.length / d : indices.length
  const maxCentroidNormSq = maxRowNormSq(centroids, k, d)
  const gather = indices === null ? null : new Float32Array(Math.min(NEAREST_TWO_GATHER_ROWS, count) * d)
  // Contiguous points go to the kernel in one call (it blocks inside); gathered ones in bounded copies.
  const step = indices === null ? Math.max(1, count) : NEAREST_TWO_GATHER_ROWS
  for (let start = 0; start < count; start += step) {
    const end = Math.min(count, start + step)
    const block = listedRows(points, d, indices, gather, start, end)
    const got =
      indices === null && all !== undefined
        ? await all(centroids, d)
        : await dense.nearestTwo(block, centroids, d)
    const { labels, distancesSq } = got
    // The kernel's own ‖x‖² (a by-product of its distances) spares an n·d loop here.
    const blockNorms =
      pointNormsSq === undefined ? (got.pointNormsSq ?? rowNormsSq(block, end - start, d)) : null
    for (let r = start; r < end; r++) {
      const o = 2 * (r - start)
      const i = indices === null ? r : indices[r]
      const normSq = blockNorms === null ? (pointNormsSq as Float64Array)[i] : blockNorms[r - start]
      visit(
        i,
        labels[r - start],
        distancesSq[o],
        distancesSq[o + 1],
        got.exact === true ? 0 : dense.distanceErrorBound(normSq, maxCentroidNormSq, d),
        normSq,
      )
    }
  }
  return count * k
}
