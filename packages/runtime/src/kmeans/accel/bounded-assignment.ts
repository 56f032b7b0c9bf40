import type { DistanceMatrixKernel, KernelPass } from '../kernels/assign-kernel.ts'
import {
  type AccelAssignResult,
  type AccelState,
  checkAccelShapes,
  checkCentroids,
  prepareKernel,
} from './accel-state.ts'

/**
 * The iteration loop every bounded (exact, accelerated) strategy shares: check the centroids,
 * keep a copy, and either assign every point in full (the first call, a new k, after `reset`)
 * or update the bounds from the previous centroids. A subclass holds its per-point state as
 * fields and implements the two passes; the loop stays here once.
 */
export abstract class BoundedAssignment implements AccelState {
  abstract readonly kernelPasses: readonly KernelPass[]
  /** The centroids of the previous call (a copy), null before the first or after `reset`. */
  private previous: Float32Array | null = null
  private previousK = 0

  constructor(
    readonly name: string,
    readonly points: Float32Array,
    readonly n: number,
    readonly d: number,
    /** The dense kernel for full passes and batched re-scans; TypeScript without one. */
    readonly dense: DistanceMatrixKernel | undefined,
  ) {
    checkAccelShapes(name, points, n, d)
  }

  async prepare(k: number): Promise<void> {
    await prepareKernel(this.dense, this.d, k, this.kernelPasses)
  }

  async assign(centroids: Float32Array, k: number): Promise<AccelAssignResult> {
    checkCentroids(this.name, centroids, k, this.d)
    const current = centroids.slice(0, k * this.d)
    const previous = this.previous
    const result =
      previous === null || this.previousK !== k
        ? await this.fullPass(current, k)
        : await this.afterMove(previous, current, k)
    this.previous = current
    this.previousK = k
    return result
  }

  reset(): void {
    this.previous = null
    this.forget()
  }

  /** Assigns every point from scratch and sets its bounds (`changed` = n). */
  protected abstract fullPass(current: Float32Array, k: number): Promise<AccelAssignResult>

  /** Moves the bounds by the centroids' drifts since `previous` and re-measures the points they no longer settle. */
  protected abstract afterMove(
    previous: Float32Array,
    current: Float32Array,
    k: number,
  ): Promise<AccelAssignResult>

  /** Drops state that depends on the centroids (called by `reset`); the next call is a full pass. */
  protected forget(): void {}
}
