import type { AccelOptions, AccelState } from './accel/accel-state.ts'
import { createLloydState } from './accel/lloyd.ts'
import type { AssignKernel } from './kernels/assign-kernel.ts'
import type { Int8Kernel } from './kernels/int8-kernel.ts'

/** A kernel that scans uint8 points as stored (the int8 kernel). */
export type ByteKernel = AssignKernel & Required<Pick<AssignKernel, 'assignBytes'>>

/** A byte kernel that also gives Hamerly's and Yinyang's full passes over uint8 points, exactly (the int8 kernel). */
export type ByteFullPassKernel = ByteKernel & Pick<Int8Kernel, 'nearestTwoBytes' | 'nearestBoundsBytes'>

/** Whether `kernel` can run Hamerly's and Yinyang's full passes over uint8 points without widening them. */
export function hasByteFullPasses(kernel: AssignKernel): kernel is ByteFullPassKernel {
  const k = kernel as Partial<ByteFullPassKernel>
  return (
    isByteKernel(kernel) &&
    typeof k.nearestTwoBytes === 'function' &&
    typeof k.nearestBoundsBytes === 'function'
  )
}

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

/**
 * The full passes of Hamerly and Yinyang over a map task's uint8 points from `kernel` over `bytes`,
 * exact (`AccelOptions`): Hamerly's nearest-two passes over all points (its first full pass, about
 * half a run's time at k = 20,000, and its full-pass iterations) take `nearestTwoBytes`; Yinyang's
 * full passes take `nearestBoundsBytes`, its group bounds from the kernel's candidate lists. Their
 * bounds, re-scans, moved sets, group passes and neighbourhoods stay on a float32 dense kernel
 * (`onnx`) over the same rows widened to float32, so the task holds both (5·n·d bytes, n·d more
 * than on float32 alone).
 */
export function bytePasses(
  kernel: ByteFullPassKernel,
  bytes: Uint8Array,
): Pick<AccelOptions, 'allNearestTwo' | 'allNearestBounds'> {
  return {
    allNearestTwo: (centroids, d) => kernel.nearestTwoBytes(bytes, centroids, d),
    allNearestBounds: (centroids, d, visit) => kernel.nearestBoundsBytes(bytes, centroids, d, visit),
  }
}
