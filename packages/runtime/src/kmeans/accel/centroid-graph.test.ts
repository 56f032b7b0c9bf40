import { describe, expect, it } from 'vitest'
import { generateBlobs } from '../bench-data.ts'
import { createReferenceKernel, rowDistanceSq } from '../kernels/reference-kernel.ts'
import { buildCentroidIndex } from './approximate.ts'
import { type CentroidGraph, graphFromNearest, walkNearest } from './centroid-graph.ts'

/** A seeded uniform stream (mulberry32), so every case is reproducible. */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Brute force in the test: the squared distance of row i to its exact nearest centroid. */
function nearestSq(points: Float32Array, i: number, centroids: Float32Array, k: number, d: number) {
  let best = Number.POSITIVE_INFINITY
  for (let j = 0; j < k; j++) best = Math.min(best, rowDistanceSq(points, i, centroids, j, d))
  return best
}

/** A graph whose rows are given lists (padded with −1). */
function graphOf(rows: number[][], degree: number): CentroidGraph {
  const neighbours = new Int32Array(rows.length * degree).fill(-1)
  for (const [c, r] of rows.entries()) neighbours.set(r.slice(0, degree), c * degree)
  return { k: rows.length, degree, neighbours, buildMs: 0 }
}

describe('walking a centroid graph', () => {
  const d = 6
  const k = 50
  const n = 600
  const rand = random(3)
  const points = Float32Array.from({ length: n * d }, () => rand() * 10)
  const centroids = Float32Array.from({ length: k * d }, () => rand() * 10)
  const starts = Int32Array.from({ length: n }, () => Math.floor(rand() * k))

  it('on the complete graph, reaches the exact nearest centroid from any start', () => {
    const all = Array.from({ length: k }, (_, c) =>
      Array.from({ length: k }, (_, j) => j).filter((j) => j !== c),
    )
    const walk = walkNearest(points, n, d, centroids, graphOf(all, k - 1), starts)
    for (let i = 0; i < n; i++)
      expect(rowDistanceSq(points, i, centroids, walk.labels[i]!, d)).toBe(
        nearestSq(points, i, centroids, k, d),
      )
    // One look at the start, then k − 1 per hop: at least one hop per point, and the last finds nothing nearer.
    expect(walk.distancesEvaluated).toBeGreaterThanOrEqual(n * k)
  })

  it('never ends farther than its start, and stays put where the start is already nearest', async () => {
    const r2 = random(9)
    const sparse = Array.from({ length: k }, (_, c) =>
      Array.from({ length: 4 }, () => Math.floor(r2() * k)).filter((j) => j !== c),
    )
    const graph = graphOf(sparse, 4)
    const walk = walkNearest(points, n, d, centroids, graph, starts)
    for (let i = 0; i < n; i++)
      expect(rowDistanceSq(points, i, centroids, walk.labels[i]!, d)).toBeLessThanOrEqual(
        rowDistanceSq(points, i, centroids, starts[i]!, d),
      )
    const exact = (await createReferenceKernel().assign(points, centroids, d)).labels
    const still = walkNearest(points, n, d, centroids, graph, exact)
    expect([...still.labels]).toEqual([...exact])
    // From the nearest centroid nothing is nearer: one look at it and one at each listed neighbour.
    expect(still.distancesEvaluated).toBe(n + exact.reduce((s, c) => s + sparse[c]!.length, 0))
  })

  it('builds its graph from a k-NN answer: self, padding and unanswered slots left out', () => {
    // 3 centroids, 3 answers per row (degree 2 + 1); row 1 answered only 2, row 2 holds usearch's padding key.
    const pad = 2n ** 64n - 1n
    const found = BigUint64Array.from([0n, 1n, 2n, 1n, 2n, 0n, 2n, pad, 1n])
    const graph = graphFromNearest(3, 2, found, 3, BigUint64Array.from([3n, 2n, 3n]))
    expect([...graph.neighbours]).toEqual([1, 2, 2, -1, 1, -1])
  })

  it('from an HNSW index over blobs’ centroids, lists each centroid’s true nearest neighbours', () => {
    const dim = 16
    const kk = 400
    const { points: cs } = generateBlobs({ n: kk, d: dim, blobs: 20, seed: 5, spread: 20 })
    const graph = buildCentroidIndex(cs, kk, dim, { threads: 1 }).graph(8)
    let hits = 0
    for (let c = 0; c < kk; c++) {
      const truth = Array.from({ length: kk }, (_, j) => j)
        .filter((j) => j !== c)
        .sort((a, b) => rowDistanceSq(cs, c, cs, a, dim) - rowDistanceSq(cs, c, cs, b, dim))
      const nearest = rowDistanceSq(cs, c, cs, truth[0]!, dim)
      const listed = [...graph.neighbours.subarray(c * 8, c * 8 + 8)]
      expect(listed).not.toContain(c)
      if (listed.some((j) => rowDistanceSq(cs, c, cs, j, dim) === nearest)) hits++
    }
    // HNSW is approximate: nearly every centroid's nearest neighbour is listed.
    expect(hits / kk).toBeGreaterThan(0.95)
  })
})
