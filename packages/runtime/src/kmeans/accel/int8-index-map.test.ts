import fc from 'fast-check'
import { Index, MetricKind, ScalarKind } from 'usearch'
import { describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { buildCentroidIndex } from './approximate.ts'
import { int8MapOf, quantiseRows } from './int8-index-map.ts'

/** Brute force in the test: the exact nearest centroid of each row (first on ties). */
function bruteNearest(points: Float32Array, n: number, centroids: Float32Array, k: number, d: number) {
  return Int32Array.from({ length: n }, (_, i) => {
    let best = 0
    for (let c = 1; c < k; c++)
      if (rowDistanceSq(points, i, centroids, c, d) < rowDistanceSq(points, i, centroids, best, d)) best = c
    return best
  })
}

/**
 * HOG-like rays: `directions` non-negative byte rows, each centroid one of them times 0.25 … 1
 * (so byte-valued after rounding), and each point a centroid plus ±2 of noise, clipped to 0 … 255.
 * Centroids on one ray differ only in length: a cast to unit length cannot tell them apart.
 */
function rays(d: number, directions: number, perRay: number, pointsPer: number) {
  const rng = createRng(5)
  const k = directions * perRay
  const centroids = new Float32Array(k * d)
  for (let r = 0; r < directions; r++) {
    const v = Array.from({ length: d }, () => 40 + rng.int(215))
    for (let s = 0; s < perRay; s++)
      for (let t = 0; t < d; t++)
        centroids[(r * perRay + s) * d + t] = Math.round(v[t]! * (0.25 + (0.75 * s) / (perRay - 1)))
  }
  const n = k * pointsPer
  const points = new Float32Array(n * d)
  for (let i = 0; i < n; i++)
    for (let t = 0; t < d; t++) {
      const x = centroids[(i % k) * d + t]! + rng.int(5) - 2
      points[i * d + t] = Math.min(255, Math.max(0, x))
    }
  return { centroids, points, k, n }
}

describe('the int8 map of an i8 HNSW index', () => {
  it('centres each dimension and gives the widest 254 steps; bytes map to themselves within half a step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 1000 }),
        (d, k, seed) => {
          const rng = createRng(seed)
          const centroids = Float32Array.from({ length: k * d }, () => rng.int(256))
          const map = int8MapOf(centroids, k, d)
          let widest = 0
          for (let t = 0; t < d; t++) {
            const column = Array.from({ length: k }, (_, c) => centroids[c * d + t]!)
            const [lo, hi] = [Math.min(...column), Math.max(...column)]
            expect(map.offset[t]).toBe((lo + hi) / 2)
            widest = Math.max(widest, hi - lo)
          }
          expect(map.scale).toBeCloseTo(widest > 0 ? widest / 254 : 1, 12)
          const q = quantiseRows(centroids, d, map, 0, k)
          for (let i = 0; i < k * d; i++) {
            expect(Math.abs(q[i]!)).toBeLessThanOrEqual(127)
            // Every centroid value lies in its dimension's range: no clamping, only rounding.
            expect(Math.abs(q[i]! * map.scale + map.offset[i % d]! - centroids[i]!)).toBeLessThanOrEqual(
              map.scale / 2 + 1e-4,
            )
          }
        },
      ),
    )
  })

  it('clamps rows beyond the centroids’ range to ±127', () => {
    const map = int8MapOf(Float32Array.of(0, 254), 2, 1)
    expect(Array.from(quantiseRows(Float32Array.of(-500, 0, 127, 254, 900), 1, map, 0, 5))).toEqual([
      -127, -127, 0, 127, 127,
    ])
  })

  it('compares the int8 rows by exact integer L2: searched exhaustively, it finds their nearest', () => {
    // Byte rows of widely varying length; with the search list longer than k the graph search is
    // exhaustive, so any distance other than L2² between the quantised rows would show.
    const d = 32
    const k = 300
    const n = 400
    const rng = createRng(9)
    const row = () => {
      const length = 0.1 + 0.9 * rng.next()
      return Array.from({ length: d }, () => Math.round(rng.int(256) * length))
    }
    const centroids = Float32Array.from(Array.from({ length: k }, row).flat())
    const points = Float32Array.from(Array.from({ length: n }, row).flat())
    const map = int8MapOf(centroids, k, d)
    const qc = quantiseRows(centroids, d, map, 0, k)
    const qp = quantiseRows(points, d, map, 0, n)
    const intDistance = (i: number, c: number) => {
      let s = 0
      for (let t = 0; t < d; t++) s += (qp[i * d + t]! - qc[c * d + t]!) ** 2
      return s
    }
    const index = buildCentroidIndex(centroids, k, d, { scalar: 'i8', expansionSearch: 512, threads: 1 })
    const labels = index.nearest(points, n)
    for (let i = 0; i < n; i++) {
      let best = Number.POSITIVE_INFINITY
      for (let c = 0; c < k; c++) best = Math.min(best, intDistance(i, c))
      expect(intDistance(i, labels[i]!), `row ${i}`).toBe(best)
    }
  })

  it('finds the exact nearest centroid on rays of byte rows, where usearch’s own float → i8 cast cannot', () => {
    const d = 64
    const { centroids, points, k, n } = rays(d, 40, 6, 5)
    const truth = bruteNearest(points, n, centroids, k, d)
    const tuning = { connectivity: 16, expansionSearch: 128, threads: 1 }
    const labels = buildCentroidIndex(centroids, k, d, { ...tuning, scalar: 'i8' }).nearest(points, n)
    let hits = 0
    for (let i = 0; i < n; i++)
      if (
        rowDistanceSq(points, i, centroids, labels[i]!, d) <=
        rowDistanceSq(points, i, centroids, truth[i]!, d)
      )
        hits++
    expect(hits / n).toBeGreaterThan(0.99)
    // The same centroids given to an i8 index as floats: usearch scales each to unit length, so a
    // ray's six centroids collapse into one vector and at most about one point in six finds its own.
    const cast = new Index({
      dimensions: d,
      metric: MetricKind.L2sq,
      quantization: ScalarKind.I8,
      multi: false,
      connectivity: 16,
      expansion_add: 256,
      expansion_search: 128,
    })
    cast.add(
      BigUint64Array.from({ length: k }, (_, c) => BigInt(c)),
      centroids,
      1,
    )
    const found = cast.search(points, 1, 1)
    let castHits = 0
    for (let i = 0; i < n; i++) if (Number(found.keys[i]) === truth[i]) castHits++
    expect(castHits / n).toBeLessThan(0.5)
  })
})
