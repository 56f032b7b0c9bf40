import { rowDistanceSq } from '../kernels/reference-kernel.ts'

/**
 * A k-nearest-neighbour graph over the centroids: `neighbours[c·degree … c·degree + degree − 1]`
 * are centroid c's nearest other centroids when the graph was built (−1 pads a row when
 * k − 1 < degree). Ids stay valid as the centroids move; positions are read from the current
 * centroids at each walk.
 */
export interface CentroidGraph {
  readonly k: number
  readonly degree: number
  readonly neighbours: Int32Array
  /** Wall time of building it, ms. */
  readonly buildMs: number
}

/** Neighbours per centroid of the walk's graph: twice HNSW's default connectivity. */
export const DEFAULT_WALK_DEGREE = 32
/** Hops a walk takes at most per point (each hop strictly nearer, so it ends anyway). */
const MAX_HOPS = 64

/**
 * The graph from each centroid's nearest centroids as a k-NN search of the centroids themselves
 * answered them (`found`: `perRow` ids per centroid, nearest first, e.g. an HNSW search for
 * degree + 1; `counts[c]` of them answered), the centroid itself left out, at most `degree` kept.
 */
export function graphFromNearest(
  k: number,
  degree: number,
  found: ArrayLike<number | bigint>,
  perRow: number,
  counts?: ArrayLike<number | bigint>,
  started = performance.now(),
): CentroidGraph {
  const neighbours = new Int32Array(k * degree).fill(-1)
  for (let c = 0; c < k; c++) {
    let out = 0
    const answered = counts ? Math.min(perRow, Number(counts[c]!)) : perRow
    for (let r = 0; r < answered && out < degree; r++) {
      const j = Number(found[c * perRow + r]!)
      // usearch pads missing answers with the largest key; a row may also omit c itself.
      if (j === c || !Number.isInteger(j) || j < 0 || j >= k) continue
      neighbours[c * degree + out++] = j
    }
  }
  return { k, degree, neighbours, buildMs: performance.now() - started }
}

/** One walk over the graph: each point's label and the exact distances it evaluated. */
export interface WalkResult {
  labels: Int32Array
  distancesEvaluated: number
}

/**
 * Labels each of the `n` points by a greedy walk over `graph` from its previous label `start[i]`:
 * move to the nearest neighbour of the current centroid while it is strictly nearer than the
 * current one (the centroids' current positions). Once centroids settle most points stop at
 * their previous centroid after one look at its `degree` neighbours — O(n·degree·d) against an
 * index's search from the top of its hierarchy. A walk ends at a local minimum of the graph, so
 * it can miss the nearest centroid: the caller measures recall and rebuilds when it drops.
 */
export function walkNearest(
  points: Float32Array,
  n: number,
  d: number,
  centroids: Float32Array,
  graph: CentroidGraph,
  start: Int32Array,
): WalkResult {
  const { degree, neighbours } = graph
  const labels = new Int32Array(n)
  let evaluated = 0
  for (let i = 0; i < n; i++) {
    let at = start[i]!
    let atSq = rowDistanceSq(points, i, centroids, at, d)
    evaluated++
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      let next = -1
      let nextSq = atSq
      const row = at * degree
      for (let r = 0; r < degree; r++) {
        const j = neighbours[row + r]!
        if (j < 0) break
        const sq = rowDistanceSq(points, i, centroids, j, d)
        evaluated++
        if (sq < nextSq) {
          nextSq = sq
          next = j
        }
      }
      if (next < 0) break
      at = next
      atSq = nextSq
    }
    labels[i] = at
  }
  return { labels, distancesEvaluated: evaluated }
}
