import { createPartials, type Partials } from '../collectives/regroup/partials.ts'
import { UsageError } from '../errors.ts'
import { accumulatePartialSums, addRow } from './accel/partial-sums.ts'
import { rowDistanceSq } from './kernels/reference-kernel.ts'

/**
 * A map task's per-cluster sums and counts, kept across iterations with the labels they were
 * computed from. Late in a run few points change cluster, so moving those few rows from their
 * old sum to their new one replaces a full n·d pass (the partial sums were a fifth of a Lloyd
 * iteration at d = 512); early, when most labels change, the sums are recomputed in full.
 */
export interface ClusterSums {
  /** The task's partials (k × d sums, k counts, float64), updated in place by {@link ClusterSums.update}. */
  readonly partials: Partials
  /** Takes this iteration's labels (values in [0, k)); returns how many points changed cluster (all on the first call). */
  update(labels: Int32Array, k: number): number
  /**
   * Σ‖x − c(label)‖² over the task's points, from the sums alone (O(k·d)):
   * Σ‖x − m‖² − 2 Σ_j (c_j − m)·(S_j − n_j m) + Σ_j n_j‖c_j − m‖² with m a point of the data
   * (the first). Exact in real arithmetic; shifting to m keeps the float64 cancellation to ~2⁻⁵³
   * times the ratio of the points' scatter about m to the inertia, wherever the data sits.
   */
  inertia(centroids: Float32Array): number
}

/** ‖a_i − b_j‖² of two uint8 rows, in float64 (exact: integers below 2⁵³). */
function byteRowDistanceSq(a: Uint8Array, i: number, b: Uint8Array, j: number, d: number): number {
  let s = 0
  for (let t = 0; t < d; t++) {
    const x = a[i * d + t]! - b[j * d + t]!
    s += x * x
  }
  return s
}

/** sums[to … to + d) += sign · bytes[from … from + d), in float64 (the partials widen per value, not the points). */
function addByteRow(
  sums: Float64Array,
  to: number,
  bytes: Uint8Array,
  from: number,
  d: number,
  sign: 1 | -1,
): void {
  for (let t = 0; t < d; t++) sums[to + t] += sign * bytes[from + t]!
}

/**
 * The float32 helpers' work over uint8 rows (a uint8 partition stays bytes in the worker): sums,
 * counts and distances of integers, so every float64 result equals the float32 path's on the
 * same values bit for bit (integer sums below 2⁵³ are exact in any order).
 */
const byteRows = {
  distanceSq: byteRowDistanceSq,
  addRow: addByteRow,
  accumulate(bytes: Uint8Array, labels: Int32Array, d: number, partials: Partials): void {
    for (let i = 0; i < labels.length; i++) {
      const c = labels[i]!
      partials.counts[c]! += 1
      addByteRow(partials.sums, c * d, bytes, i * d, d, 1)
    }
  },
}

/**
 * Creates the cluster sums of one task's points (n × d, row-major: float32, or uint8 as stored);
 * no labels yet.
 */
export function createClusterSums(points: Float32Array | Uint8Array, d: number): ClusterSums {
  return points instanceof Uint8Array ? createSums(points, d, byteRows) : createSums(points, d, floatRows)
}

/** The row operations of {@link createSums} over one element type. */
interface RowOps<P> {
  distanceSq(a: P, i: number, b: P, j: number, d: number): number
  addRow(sums: Float64Array, to: number, points: P, from: number, d: number, sign: 1 | -1): void
  /** Adds every point's row to its label's sum and count (labels already checked). */
  accumulate(points: P, labels: Int32Array, d: number, partials: Partials): void
}

const floatRows: RowOps<Float32Array> = {
  distanceSq: rowDistanceSq,
  addRow,
  accumulate(points, labels, d, partials) {
    accumulatePartialSums(points, labels, d, partials.k, partials)
  },
}

function createSums<P extends Float32Array | Uint8Array>(points: P, d: number, ops: RowOps<P>): ClusterSums {
  const n = d === 0 ? 0 : points.length / d
  let labels = new Int32Array(n)
  let fresh = true
  let partials = createPartials(0, d)
  // Sums are taken about a shift (the first point) so that, however far the data sits from the
  // origin, the inertia formula below does not cancel ‖x‖²-sized terms.
  const shift = new Float64Array(d)
  for (let t = 0; t < Math.min(d, points.length); t++) shift[t] = points[t]!
  let scatter = 0
  for (let i = 0; i < n; i++) scatter += ops.distanceSq(points, i, points, 0, d)

  function move(i: number, from: number, to: number): void {
    const { sums, counts } = partials
    counts[from]! -= 1
    counts[to]! += 1
    ops.addRow(sums, from * d, points, i * d, d, -1)
    ops.addRow(sums, to * d, points, i * d, d, 1)
  }

  return {
    get partials() {
      return partials
    },
    update(next: Int32Array, k: number): number {
      if (next.length !== n)
        throw new UsageError('CLUSTER_SUMS_BAD_LABELS', `cluster sums: ${next.length} labels for ${n} points`)
      // Checked before anything changes, so a bad label leaves the sums as they were.
      let changed = 0
      for (let i = 0; i < n; i++) {
        const to = next[i]!
        if (!(to >= 0 && to < k))
          throw new UsageError(
            'CLUSTER_SUMS_BAD_LABELS',
            `cluster sums: label ${to} of point ${i} is outside [0, ${k})`,
          )
        if (to !== labels[i]) changed++
      }
      // Every point counts as changed on the first call (it had no cluster).
      if (fresh) changed = n
      // A delta costs two row updates per changed point, a recomputation one per point.
      if (fresh || partials.k !== k || 2 * changed >= n) {
        partials = createPartials(k, d)
        ops.accumulate(points, next, d, partials)
      } else {
        for (let i = 0; i < n; i++) if (next[i] !== labels[i]) move(i, labels[i]!, next[i]!)
      }
      labels = next.slice()
      fresh = false
      return changed
    },
    inertia(centroids: Float32Array): number {
      const { k, sums, counts } = partials
      let cross = 0
      let own = 0
      for (let j = 0; j < k; j++) {
        const nj = counts[j]!
        if (nj === 0) continue
        const c = centroids.subarray(j * d, j * d + d)
        const s = sums.subarray(j * d, j * d + d)
        let dot = 0
        let norm = 0
        for (let t = 0; t < d; t++) {
          const cm = c[t]! - shift[t]!
          dot += cm * (s[t]! - nj * shift[t]!)
          norm += cm * cm
        }
        cross += dot
        own += nj * norm
      }
      return Math.max(0, scatter - 2 * cross + own)
    },
  }
}
