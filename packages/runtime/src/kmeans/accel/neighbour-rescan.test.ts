import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { randomInit } from '../init/random-init.ts'
import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { createOrtKernel, type OrtKernel } from '../kernels/ort-kernel.ts'
import { neighbourRescan } from './neighbour-rescan.ts'
import { accumulatePartialSums } from './partial-sums.ts'
import { generateBlobs } from './test-support/blobs.ts'
import { bruteForce } from './test-support/exact.ts'

describe('neighbourRescan', () => {
  let ort: OrtKernel
  beforeAll(async () => {
    ort = await createOrtKernel({ intraOpNumThreads: 1 })
  })
  afterAll(async () => {
    await ort.dispose()
  })

  it.each([
    ['TopK lists, TypeScript distances', 'topk', 100],
    ['lists by threshold, then TopK (outliers)', 'within', 100],
    ['lists by threshold, batched products', 'within', 0],
  ] as const)(
    '%s: lists as long as the sample needs; points they cannot settle are left unsettled, the rest settle exactly',
    async (_, path, outliers) => {
      // Tight blobs (ten centroids each, as at large k) and 0.5 % far outliers: the sampled lists
      // reach the cut within a few entries for nearly every point, so the rows are fetched short;
      // an outlier's cut lies far past such a list, so it must be left to the dense re-scan.
      const d = 8
      const k = 4096
      const inBlobs = 19_900
      const n = inBlobs + outliers
      const blobs = generateBlobs({ n: inBlobs, d, blobs: 410, seed: 61, spread: 10, sigma: 0.3 })
      const points = new Float32Array(n * d)
      points.set(blobs.points)
      const rng = createRng(62)
      for (let v = inBlobs * d; v < n * d; v++) points[v] = (2 * rng.next() - 1) * 40
      const init = randomInit(blobs.points, inBlobs, d, k, createRng(63)).centroids
      // The state a second iteration starts from: labels of the init, centroids moved by one update.
      const labels = bruteForce(points, n, d, init, k).best
      const { sums, counts } = accumulatePartialSums(points, labels, d, k)
      const centroids = init.slice()
      for (let j = 0; j < k; j++)
        if (counts[j] > 0) for (let t = 0; t < d; t++) centroids[j * d + t] = sums[j * d + t] / counts[j]

      const asked: number[] = []
      const withinRows: number[] = []
      const kernel: DistanceMatrixKernel = {
        ...ort,
        nearestM: (p, c, count, dim) => {
          asked.push(count)
          return ort.nearestM(p, c, count, dim)
        },
        within: (p, c, thresholds, dim) => {
          withinRows.push(thresholds.length)
          return ort.within(p, c, thresholds, dim)
        },
        withinEither: (p, c, thresholds, radii, dim) => {
          withinRows.push(thresholds.length)
          return ort.withinEither(p, c, thresholds, radii, dim)
        },
      }
      if (path === 'topk') {
        delete kernel.within
        delete kernel.withinEither
        delete kernel.listDots
      }
      const settled = new Map<number, { best: number; dist: number; others: number }>()
      const result = await neighbourRescan(
        points,
        n,
        d,
        centroids,
        k,
        labels,
        null,
        kernel,
        (i, best, dist, others) => settled.set(i, { best, dist, others }),
      )
      expect(result).not.toBeNull()
      if (result === null) return
      if (path === 'topk') {
        // The sample's rows at the cap (k/64 + 2), every other row shorter.
        expect(asked[0]).toBe(Math.floor(k / 64) + 2)
        expect(asked.length).toBeGreaterThan(1)
        for (const count of asked.slice(1)) expect(count).toBeLessThan(asked[0] as number)
      } else if (outliers === 0) {
        // Every row by threshold (the sample, then the rest), no TopK.
        expect(asked).toEqual([])
        expect(withinRows[0]).toBe(256)
        expect(withinRows.length).toBeGreaterThan(1)
      } else {
        // The sample by threshold (256 rows), then the other rows: the outliers' rows hold many
        // centroids within their reach, more than k/64 on average, so the rest go through TopK.
        expect(withinRows).toEqual([256])
        expect(asked.length).toBeGreaterThan(0)
        for (const count of asked) expect(count).toBeLessThan(Math.floor(k / 64) + 2)
      }

      const truth = bruteForce(points, n, d, centroids, k)
      const unsettled = new Set(result.unsettled)
      expect(unsettled.size).toBe(result.unsettled.length)
      // Every point is either settled or left to the dense re-scan, never both.
      expect(settled.size + unsettled.size).toBe(n)
      for (const i of unsettled) expect(settled.has(i)).toBe(false)
      // The short lists left outliers unsettled (and only a few blob points).
      let outliersLeft = 0
      for (const i of unsettled) if (i >= inBlobs) outliersLeft++
      if (outliers > 0) expect(outliersLeft).toBeGreaterThan(outliers / 2)
      expect(unsettled.size - outliersLeft).toBeLessThan(0.02 * inBlobs)
      // Settled points: Lloyd's label, their exact distance, and a valid bound on all other centroids.
      for (const [i, s] of settled) {
        expect(s.best).toBe(truth.best[i])
        expect(s.dist).toBeCloseTo(Math.sqrt(truth.bestSq[i] as number), 9)
        expect(s.others).toBeLessThanOrEqual(Math.sqrt(truth.secondSq[i] as number) * (1 + 1e-9))
      }
    },
    120_000,
  )
})
