import type { KernelPass } from '../kernels/assign-kernel.ts'
import { type AccelAssignResult, type AccelOptions, type AccelState, iterationResult } from './accel-state.ts'
import { BoundedAssignment } from './bounded-assignment.ts'
import { neighbourRescan } from './neighbour-rescan.ts'
import { RowResolver, rescanPoints, UNSETTLED } from './row-resolution.ts'

/**
 * The centroid-neighbourhood re-scan ({@link neighbourRescan}) as a strategy of its own: a dense
 * pass first, then every iteration each point is re-scanned from its previous label through its
 * centroid's neighbourhood (the centroids within twice its distance), and only the points a
 * truncated list cannot settle get a dense row (all of them, when a sample of the lists predicts
 * that the neighbourhoods cost more than rows). It keeps no bounds, only the labels: what
 * Hamerly adds on top (at large k it re-scans its failing points this way) is the skipping.
 */
export class NeighbourhoodState extends BoundedAssignment {
  readonly kernelPasses: readonly KernelPass[]
  private readonly labels: Int32Array

  constructor(points: Float32Array, n: number, d: number, options: AccelOptions = {}) {
    super('neighbourhood', points, n, d, options.dense)
    this.labels = new Int32Array(n)
    this.kernelPasses = options.dense?.nearestTwo ? ['nearestTwo'] : []
  }

  protected async fullPass(current: Float32Array, k: number): Promise<AccelAssignResult> {
    const evaluated = await this.rescan(null, current, k)
    return {
      labels: this.labels.slice(),
      distancesEvaluated: evaluated,
      centroidDistancesEvaluated: 0,
      changed: this.n,
    }
  }

  protected async afterMove(
    _previous: Float32Array,
    current: Float32Array,
    k: number,
  ): Promise<AccelAssignResult> {
    const { points, n, d, dense, labels } = this
    const before = labels.slice()
    const done = await neighbourRescan(points, n, d, current, k, labels, null, dense, (i, best) => {
      labels[i] = best
    })
    if (done === null) return iterationResult(labels, before, await this.rescan(null, current, k))
    const rescanned = await this.rescan(done.unsettled, current, k)
    return iterationResult(labels, before, done.evaluated + rescanned, done.centroidDistancesEvaluated)
  }

  /** Exact labels for the listed points (all when null): dense rows or nearest two, in TypeScript without a kernel. */
  private async rescan(indices: Int32Array | null, centroids: Float32Array, k: number): Promise<number> {
    const { points, n, d, dense, labels } = this
    if (indices !== null && indices.length === 0) return 0
    const resolver = new RowResolver(points, d, centroids, k)
    const evaluated = await rescanPoints(points, n, d, centroids, k, indices, {
      dense,
      nearestTwoFirst: dense?.nearestTwo !== undefined && k >= 2,
      settleTwo: (i, best, nearestSq, secondSq, errorBound) => {
        if (resolver.settleNearestTwo(i, best, nearestSq, secondSq, errorBound, true) === UNSETTLED)
          return false
        labels[i] = best
        return true
      },
      visitRow: (i, row, offset, errorBound) => {
        labels[i] = resolver.nearest(i, row, offset, errorBound)
      },
    })
    return evaluated + resolver.evaluated
  }
}

/** A {@link NeighbourhoodState} over the n rows of `points`. */
export function createNeighbourhoodState(
  points: Float32Array,
  n: number,
  d: number,
  options: AccelOptions = {},
): AccelState {
  return new NeighbourhoodState(points, n, d, options)
}
