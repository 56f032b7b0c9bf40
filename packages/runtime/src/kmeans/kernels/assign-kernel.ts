/** Nearest-centroid assignment of a block of points. */
export interface AssignResult {
  /** labels[i] is the index of the centroid nearest to point i. */
  labels: Int32Array
  /** distancesSq[i] is the squared L2 distance from point i to centroid labels[i]. */
  distancesSq: Float32Array
}

/** The kernel calls a map task makes every iteration, as named in {@link AssignKernel.prepare}. */
export type KernelPass = 'assign' | 'nearestTwo' | 'nearestExcluding'

/**
 * The seam between K-means and its compute kernel: the reference TypeScript kernel and the
 * fast (BLAS-speed) kernels implement the same contract, so tests can compare them directly.
 * `points` is n × d and `centroids` is k × d, both row-major float32.
 */
export interface AssignKernel {
  readonly name: string
  assign(points: Float32Array, centroids: Float32Array, d: number): Promise<AssignResult>
  /**
   * Optional: the same pass over uint8 points (n × d bytes, as stored), for kernels that compute
   * on bytes (the int8 kernel); the result is `assign`'s on the same values as float32.
   */
  assignBytes?(points: Uint8Array, centroids: Float32Array, d: number): Promise<AssignResult>
  /**
   * Optional: gets the listed passes ready for calls with dimension d and k centroids (sessions,
   * buffers), so the first iterations do not pay for it. Called once at load with the passes the
   * map task will use; correctness never depends on it.
   */
  prepare?(d: number, k: number, passes: readonly KernelPass[]): Promise<void>
  /** Releases native resources (sessions, threads); the kernel is unusable afterwards. */
  dispose(): Promise<void>
}

/** Each point's nearest centroids, n × count row-major, ascending by squared distance. */
export interface NearestM {
  indices: Int32Array
  distancesSq: Float32Array
}

/**
 * {@link DistanceMatrixKernel.within}: per point the centroids below its threshold, as compressed
 * rows (row r's entries at rowStart[r] … rowStart[r + 1] − 1, columns ascending).
 */
export interface Within {
  /** m + 1 offsets into `columns` and `partial`. */
  rowStart: Int32Array
  columns: Int32Array
  /** ‖c‖² − 2x·c of each entry: add ‖x‖² for its squared distance, within the error bound. */
  partial: Float32Array
}

/** The nearest centroid of each of n points, and its two smallest squared distances. */
export interface NearestTwo {
  /** labels[i]: the nearest centroid of point i (n). */
  labels: Int32Array
  /** Row-major n × 2: the squared distances to the nearest and the second-nearest centroid. */
  distancesSq: Float32Array | Float64Array
  /** Optional: ‖x‖² of each point (n), where the kernel computes it anyway. */
  pointNormsSq?: Float32Array | Float64Array
  /**
   * Optional: the distances are the exact float64 `rowDistanceSq` values (error bound 0 whatever
   * the kernel's {@link DistanceMatrixKernel.distanceErrorBound}): the int8 kernel's `nearestTwoBytes`.
   */
  exact?: boolean
}

/**
 * Receives one point of a nearest-and-bounds pass over all points (the int8 kernel's
 * `nearestBoundsBytes`): its exact nearest centroid `label` (ties to the lowest index) and its
 * exact float64 squared distance `nearestSq`, and lower bounds on the squared distances to the
 * others: `lowSq[c]` for centroid `ids[c]` (c < count; `label` may be listed too), `floorSq` for
 * every centroid not listed. The arrays are reused for the next point.
 */
export type NearestBoundsVisitor = (
  i: number,
  label: number,
  nearestSq: number,
  ids: Int32Array,
  lowSq: Float64Array,
  count: number,
  floorSq: number,
) => void

/** {@link DistanceMatrixKernel.groupMinima}: per point its nearest row and every group's minimum without it. */
export interface GroupMinima {
  /** Nearest centroid row of each point (first on ties), n. */
  nearest: Int32Array
  nearestSq: Float32Array
  /** n × t: each group's smallest squared distance over its rows other than `nearest[i]`. */
  groupMinSq: Float32Array
}

/**
 * A kernel that can also return a whole block of squared distances (n × k, row-major), with a
 * bound on how far each computed value may be from the exact one. The accelerated algorithms
 * (Hamerly, Yinyang) use it to initialise their bounds at BLAS speed: a lower bound computed from
 * an inexact distance stays a lower bound once the error bound is subtracted.
 */
export interface DistanceMatrixKernel extends AssignKernel {
  /** Squared distances from every point to every centroid, n × k row-major. */
  distances(points: Float32Array, centroids: Float32Array, d: number): Promise<Float32Array>
  /**
   * Optional: only the nearest centroid of each point (k ≥ 2) and the squared distances to the
   * nearest and second nearest, within the same error bound. Much less data
   * than {@link DistanceMatrixKernel.distances} when only the two best are needed (Hamerly).
   */
  nearestTwo?(points: Float32Array, centroids: Float32Array, d: number): Promise<NearestTwo>
  /**
   * Optional: each point's `count` nearest centroids (1 ≤ count ≤ k), ascending by squared
   * distance, n × count row-major, within the same error bound as
   * {@link DistanceMatrixKernel.distances}; every other centroid is at least the last one's value
   * minus that bound away. Only count values per row leave the kernel (Hamerly's neighbourhoods).
   */
  nearestM?(points: Float32Array, centroids: Float32Array, count: number, d: number): Promise<NearestM>
  /**
   * Optional: `centroids` are t · G rows laid out member-major (row p·t + q is member p of group
   * q; padding rows allowed: give them a huge `centroidNormsSq`). Returns each point's nearest
   * row and every group's minimum over its other rows, within the same error bound as
   * {@link DistanceMatrixKernel.distances} (with `maxCentroidNormSq` over the real rows).
   */
  groupMinima?(
    points: Float32Array,
    centroids: Float32Array,
    centroidNormsSq: Float32Array,
    groups: number,
    d: number,
  ): Promise<GroupMinima>
  /**
   * Optional: per point, the smallest squared distance to the centroids other than
   * `exclude[i]` (a centroid index, or k to exclude none), within the same error bound, given
   * every point's ‖x‖² (`pointNormsSq`, n). Hamerly's moved-set pass (a few centroids, all points).
   */
  nearestExcluding?(
    points: Float32Array,
    centroids: Float32Array,
    exclude: Int32Array,
    pointNormsSq: Float32Array | Float64Array,
    d: number,
  ): Promise<Float32Array>
  /**
   * Optional: per point, the centroids whose computed ‖c‖² − 2x·c is below `thresholds[i]`
   * (m values), with those values. Every centroid left out has a computed value ≥ the threshold,
   * so its exact squared distance is ≥ threshold + ‖x‖² − the error bound below (Hamerly's
   * centroid neighbourhoods: each centroid's neighbours within its points' reach, no TopK).
   */
  within?(points: Float32Array, centroids: Float32Array, thresholds: Float32Array, d: number): Promise<Within>
  /**
   * Optional: {@link within} where an entry is kept too when ‖x‖² + its value (‖x‖² of the float32
   * row, in float64) is below its column's `columnRadiusSq` (k values): every entry left out has
   * both at or above their thresholds, so one pass over a pair of centroids lists it for both.
   */
  withinEither?(
    points: Float32Array,
    centroids: Float32Array,
    thresholds: Float32Array,
    columnRadiusSq: Float64Array,
    d: number,
  ): Promise<Within>
  /**
   * Optional: G small dot-product blocks at once (Hamerly's neighbourhood re-scan: the points
   * sharing a centroid against its neighbour list). `pointIndex` holds G × P rows of `points`,
   * `listIndex` G × L rows of `centroids`; returns the G × L × P dot products c · x (row-major,
   * entry (g, l, p) = centroid listIndex[g·L + l] · point pointIndex[g·P + p]). Each dot product
   * is within half the error bound below, so ‖x‖² + ‖c‖² − 2·dot (norms in float64) is within it.
   */
  listDots?(
    points: Float32Array,
    centroids: Float32Array,
    pointIndex: Int32Array,
    listIndex: Int32Array,
    groups: number,
    d: number,
  ): Promise<Float32Array>
  /**
   * An upper bound on |computed − exact| for one squared distance from a point with
   * ‖x‖² = `pointNormSq` to any centroid with ‖c‖² ≤ `maxCentroidNormSq`. 0 for exact kernels.
   */
  distanceErrorBound(pointNormSq: number, maxCentroidNormSq: number, d: number): number
}
