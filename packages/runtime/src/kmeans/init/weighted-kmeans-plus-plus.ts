import type { Rng } from '../../random/rng.ts'
import type { AssignKernel, DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'

/** Most picks held back before their distances are applied to every row in one block. */
const MAX_PENDING = 64
/** Draws rejected in a row before the pending picks are applied anyway (the stale masses then shrink to the true ones). */
const MAX_REJECTIONS = 64

/**
 * k-means++ over m weighted rows: the first pick ∝ weight, each next ∝ weight · D² to the picks
 * so far. Returns k distinct row numbers. Rows that coincide with a pick have D² = 0 and are
 * never picked while other mass is left; then the pick is uniform over the rest.
 *
 * Why blocked: applying each pick's m distances as it is made is a matrix-vector product per
 * pick (memory-bound, k of them). Instead up to {@link MAX_PENDING} picks are held back and
 * applied together as one m × p distance block (a GEMM on a {@link DistanceMatrixKernel}).
 * Meanwhile draws come from the stale masses w·D²_stale ≥ w·D² and are accepted with
 * probability D²/D²_stale, D² computed exactly against the row's nearest applied pick and the
 * pending ones: rejection sampling, so every pick still has the k-means++ distribution.
 * Without a distance-block kernel the blocks are exact TypeScript loops (same draws, slower).
 */
export async function weightedKmeansPlusPlus(
  rows: Float32Array,
  weights: Float64Array,
  m: number,
  d: number,
  k: number,
  rng: Rng,
  kernel?: AssignKernel,
): Promise<Int32Array> {
  const dense = distanceKernel(kernel)
  const picked = new Int32Array(k)
  const taken = new Uint8Array(m)
  // D² to the nearest applied pick (float32 kernel values when dense), and which pick that is.
  const staleSq = new Float64Array(m).fill(Number.POSITIVE_INFINITY)
  const nearestPick = new Int32Array(m).fill(-1)
  const cumulative = new Float64Array(m)
  const pending: number[] = []
  let total = rebuild(cumulative, weights, staleSq, taken, m, true)

  for (let j = 0; j < k; j++) {
    let choice = -1
    let rejections = 0
    while (total > 0) {
      const r = drawRow(cumulative, m, rng.next() * total)
      const exactSq = j === 0 ? 1 : exactDistanceSq(rows, r, d, nearestPick[r], pending)
      // A taken row has D² = 0 against itself: never accepted.
      if (taken[r] === 0 && rng.next() * (j === 0 ? 1 : staleSq[r]) < exactSq) {
        choice = r
        break
      }
      if (++rejections < MAX_REJECTIONS) continue
      if (pending.length === 0) {
        total = 0 // only float32 dust is left on rows that coincide with picks
        break
      }
      await applyPending(rows, m, d, pending, staleSq, nearestPick, dense)
      total = rebuild(cumulative, weights, staleSq, taken, m, false)
      rejections = 0
    }
    if (choice === -1) choice = uniformUntaken(taken, m, rng)
    picked[j] = choice
    taken[choice] = 1
    if (j === k - 1) break
    pending.push(choice)
    // Early picks cut the mass fast (many rejections): apply them sooner.
    if (pending.length >= Math.min(MAX_PENDING, Math.max(1, j >> 3))) {
      await applyPending(rows, m, d, pending, staleSq, nearestPick, dense)
      total = rebuild(cumulative, weights, staleSq, taken, m, false)
    }
  }
  return picked
}

function distanceKernel(kernel: AssignKernel | undefined): DistanceMatrixKernel | undefined {
  return kernel !== undefined && typeof (kernel as Partial<DistanceMatrixKernel>).distances === 'function'
    ? (kernel as DistanceMatrixKernel)
    : undefined
}

/** Prefix sums of the masses (weights alone before the first pick); returns the total. */
function rebuild(
  cumulative: Float64Array,
  weights: Float64Array,
  staleSq: Float64Array,
  taken: Uint8Array,
  m: number,
  first: boolean,
): number {
  let total = 0
  for (let r = 0; r < m; r++) {
    const mass = taken[r] === 1 ? 0 : first ? weights[r] : weights[r] * staleSq[r]
    if (mass > 0) total += mass
    cumulative[r] = total
  }
  return total
}

/** The row whose cumulative interval holds `target` (binary search; zero-mass rows are never hit). */
function drawRow(cumulative: Float64Array, m: number, target: number): number {
  let lo = 0
  let hi = m - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cumulative[mid] > target) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** Exact float64 D² of row r to its nearest applied pick and to every pending pick. */
function exactDistanceSq(
  rows: Float32Array,
  r: number,
  d: number,
  nearest: number,
  pending: number[],
): number {
  let best = nearest >= 0 ? rowDistanceSq(rows, r, rows, nearest, d) : Number.POSITIVE_INFINITY
  for (const p of pending) {
    const v = rowDistanceSq(rows, r, rows, p, d)
    if (v < best) best = v
  }
  return best
}

/** Lowers every row's stale D² with the pending picks (one distance block), then clears them. */
async function applyPending(
  rows: Float32Array,
  m: number,
  d: number,
  pending: number[],
  staleSq: Float64Array,
  nearestPick: Int32Array,
  dense: DistanceMatrixKernel | undefined,
): Promise<void> {
  const p = pending.length
  if (p === 0) return
  const pickRows = new Float32Array(p * d)
  for (let c = 0; c < p; c++) pickRows.set(rows.subarray(pending[c] * d, pending[c] * d + d), c * d)
  if (dense !== undefined) {
    const block = await dense.distances(rows.subarray(0, m * d), pickRows, d)
    for (let r = 0; r < m; r++) {
      for (let c = 0; c < p; c++) {
        const v = block[r * p + c]
        if (v < staleSq[r]) {
          staleSq[r] = v
          nearestPick[r] = pending[c]
        }
      }
    }
  } else {
    for (let r = 0; r < m; r++) {
      for (let c = 0; c < p; c++) {
        const v = rowDistanceSq(rows, r, pickRows, c, d)
        if (v < staleSq[r]) {
          staleSq[r] = v
          nearestPick[r] = pending[c]
        }
      }
    }
  }
  for (const c of pending) {
    staleSq[c] = 0
    nearestPick[c] = c
  }
  pending.length = 0
}

/** A uniform draw among the rows not taken yet. */
function uniformUntaken(taken: Uint8Array, m: number, rng: Rng): number {
  let remaining = 0
  for (let r = 0; r < m; r++) if (taken[r] === 0) remaining++
  let skip = rng.int(remaining)
  for (let r = 0; r < m; r++) {
    if (taken[r] === 1) continue
    if (skip-- === 0) return r
  }
  return -1
}
