import type { AssignKernel, KernelPass } from '../kernels/assign-kernel.ts'
import { type AccelAssignResult, type AccelState, checkCentroids, prepareKernel } from './accel-state.ts'

/**
 * Lloyd's assignment as a strategy: every iteration a dense pass of every point against every
 * centroid on the task's kernel (the reference kernel defines these labels; the ONNX kernel
 * matches them), so it keeps no bounds, only the last labels to count the changed ones.
 */
export class LloydState implements AccelState {
  readonly name = 'lloyd'
  readonly kernelPasses: readonly KernelPass[] = ['assign']
  /** The previous call's labels (for `changed`), null before the first or after `reset`. */
  private previous: { k: number; labels: Int32Array } | null = null

  constructor(
    private readonly points: Float32Array,
    readonly n: number,
    readonly d: number,
    private readonly kernel: AssignKernel,
  ) {}

  async prepare(k: number): Promise<void> {
    await prepareKernel(this.kernel, this.d, k, this.kernelPasses)
  }

  async assign(centroids: Float32Array, k: number): Promise<AccelAssignResult> {
    checkCentroids(this.name, centroids, k, this.d)
    const { labels } = await this.kernel.assign(this.points, centroids, this.d)
    const before = this.previous?.k === k ? this.previous.labels : null
    let changed = 0
    if (before === null) changed = this.n
    else for (let i = 0; i < this.n; i++) if (labels[i] !== before[i]) changed++
    this.previous = { k, labels: labels.slice() }
    return { labels, distancesEvaluated: this.n * k, centroidDistancesEvaluated: 0, changed }
  }

  reset(): void {
    this.previous = null
  }
}

/** A {@link LloydState} over the n rows of `points`, assigned on `kernel`. */
export function createLloydState(
  points: Float32Array,
  n: number,
  d: number,
  kernel: AssignKernel,
): AccelState {
  return new LloydState(points, n, d, kernel)
}
