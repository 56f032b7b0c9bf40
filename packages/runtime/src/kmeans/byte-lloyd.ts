import type { AccelState, AllNearestTwo } from './accel/accel-state.ts'
import { createLloydState } from './accel/lloyd.ts'
import type { AssignKernel, NearestTwo } from './kernels/assign-kernel.ts'

/** A kernel that scans uint8 points as stored (the int8 kernel). */
export type ByteKernel = AssignKernel & Required<Pick<AssignKernel, 'assignBytes'>>

/** A byte kernel that also gives uint8 points' exact nearest two (the int8 kernel): Hamerly's and Yinyang's full passes. */
export type ByteNearestTwoKernel = ByteKernel & {
  nearestTwoBytes(points: Uint8Array, centroids: Float32Array, d: number): Promise<NearestTwo>
}

/** Whether `kernel` can give the nearest two of uint8 points without widening them. */
export function hasByteNearestTwo(kernel: AssignKernel): kernel is ByteNearestTwoKernel {
  return (
    isByteKernel(kernel) && typeof (kernel as Partial<ByteNearestTwoKernel>).nearestTwoBytes === 'function'
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
 * The exact nearest two of a map task's uint8 points from `kernel`'s `nearestTwoBytes` over
 * `bytes` (error bound 0), as the `allNearestTwo` of Hamerly and Yinyang (`AccelOptions`): their
 * nearest-two passes over all points — Hamerly's first full pass (about half a run's time at
 * k = 20,000) and its full-pass iterations, Yinyang's full passes, where every group bound becomes
 * the exact second best — scan the bytes, while the bounds, re-scans, moved sets, group passes
 * and neighbourhoods stay on a float32 dense kernel (`onnx`) over the same rows widened to float32.
 * So the task holds both (5·n·d bytes, n·d more than on float32 alone).
 */
export function byteNearestTwo(kernel: ByteNearestTwoKernel, bytes: Uint8Array): AllNearestTwo {
  return (centroids, d) => kernel.nearestTwoBytes(bytes, centroids, d)
}
