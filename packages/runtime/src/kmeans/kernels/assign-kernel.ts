/** Nearest-centroid assignment of a block of points. */
export interface AssignResult {
  /** labels[i] is the index of the centroid nearest to point i. */
  labels: Int32Array
  /** distancesSq[i] is the squared L2 distance from point i to centroid labels[i]. */
  distancesSq: Float32Array
}

/**
 * The seam between K-means and its compute kernel: the reference TypeScript kernel and the
 * fast (BLAS-speed) kernels implement the same contract, so tests can compare them directly.
 * `points` is n × d and `centroids` is k × d, both row-major float32.
 */
export interface AssignKernel {
  readonly name: string
  assign(points: Float32Array, centroids: Float32Array, d: number): Promise<AssignResult>
  /** Releases native resources (sessions, threads); the kernel is unusable afterwards. */
  dispose(): Promise<void>
}
