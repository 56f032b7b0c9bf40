import type { AccelState } from './accel/accel-state.ts'
import { createLloydState } from './accel/lloyd.ts'
import type { AssignKernel } from './kernels/assign-kernel.ts'

/** A kernel that scans uint8 points as stored (the int8 kernel). */
export type ByteKernel = AssignKernel & Required<Pick<AssignKernel, 'assignBytes'>>

/** Whether `kernel` can assign uint8 points without widening them. */
export function isByteKernel(kernel: AssignKernel): kernel is ByteKernel {
  return typeof kernel.assignBytes === 'function'
}

/**
 * Lloyd's dense pass over a map task's uint8 points, kept as bytes (n·d bytes, not 4·n·d): every
 * iteration the kernel's `assignBytes` scans every point against every centroid and returns the
 * reference kernel's labels on the same values. It is `LloydState` over a view of the kernel
 * bound to these bytes: that view's `assign` ignores its float32 `points` argument (given an
 * empty array) and scans the bytes. The worker uses it for a uint8 partition under exact Lloyd on
 * a byte kernel; every other strategy takes float32 points.
 */
export function createByteLloydState(
  points: Uint8Array,
  n: number,
  d: number,
  kernel: ByteKernel,
): AccelState {
  const scan: AssignKernel = {
    name: kernel.name,
    assign: (_unused, centroids, dim) => kernel.assignBytes(points, centroids, dim),
    prepare: (dim, k, passes) => kernel.prepare?.(dim, k, passes) ?? Promise.resolve(),
    dispose: () => kernel.dispose(),
  }
  return createLloydState(new Float32Array(0), n, d, scan)
}
