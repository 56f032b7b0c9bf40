import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { createOrtKernel, type OrtKernel } from '../kernels/ort-kernel.ts'
import { rowDistanceSq } from '../kernels/reference-kernel.ts'
import { CentroidNeighbourhoods } from './centroid-neighbourhoods.ts'

describe('CentroidNeighbourhoods', () => {
  let ort: OrtKernel
  beforeAll(async () => {
    ort = await createOrtKernel({ intraOpNumThreads: 1 })
  })
  afterAll(async () => {
    await ort.dispose()
  })

  it.each([
    ['every row, lists uncapped', 3000, 3000],
    ['most rows (the others only columns), lists uncapped', 2600, 3000],
    ['every row, lists capped at 8', 3000, 8],
  ] as const)(
    'lists by threshold over the upper block triangle, %s: complete to 2·reach, lower bounds, outside below every centroid left out',
    async (_, rows, maxList) => {
      // Clustered centroids with exact duplicates and equal distances (integer grid values),
      // reaches from 0 to past the clusters' spread; more rows than one symmetric block.
      const d = 16
      const k = 3000
      const rng = createRng(71)
      const centroids = new Float32Array(k * d)
      for (let j = 0; j < k; j++) {
        const cluster = j % 97
        for (let t = 0; t < d; t++)
          centroids[j * d + t] = ((cluster * 7 + t * 3) % 23) * 4 + Math.round((2 * rng.next() - 1) * 2)
      }
      for (let j = 0; j < k; j += 11) centroids.copyWithin(j * d, ((j * 5) % k) * d, ((j * 5) % k) * d + d)
      const reach = new Float64Array(k)
      for (let j = 0; j < k; j++) reach[j] = j % 13 === 0 ? 0 : rng.next() * 6
      const which = Int32Array.from({ length: rows }, (_, r) => (r * 7) % k)
      const asked: number[] = []
      const kernel = {
        ...ort,
        withinEither: (...args: Parameters<OrtKernel['withinEither']>) => {
          asked.push(args[2].length)
          return ort.withinEither(...args)
        },
      }
      const hoods = new CentroidNeighbourhoods(centroids, k, d, reach, maxList, kernel)
      await hoods.fetch(which)
      // Blocks of the upper triangle, not one call over every row.
      expect(asked.length).toBeGreaterThan(1)

      // Violations counted, not asserted one by one (9 M pairs).
      const bad = { self: 0, duplicate: 0, order: 0, low: 0, outside: 0, missing: 0 }
      for (const a of which) {
        const list = hoods.lists[a]
        expect(list).toBeDefined()
        if (list === undefined) continue
        const inList = new Map<number, number>()
        for (let p = 0; p < list.j.length; p++) {
          const j = list.j[p] as number
          if (j === a) bad.self++
          if (inList.has(j)) bad.duplicate++
          inList.set(j, list.dist[p] as number)
          if (p > 0 && (list.dist[p - 1] as number) > (list.dist[p] as number)) bad.order++
        }
        const outside = hoods.outside[a] as number
        for (let j = 0; j < k; j++) {
          if (j === a) continue
          const exact = Math.sqrt(rowDistanceSq(centroids, a, centroids, j, d))
          const low = inList.get(j)
          if (low !== undefined) {
            if (low > exact) bad.low++
          } else {
            if (outside > exact) bad.outside++
            // Uncapped lists miss no centroid within 2·reach.
            if (maxList === k && exact < 2 * (reach[a] as number) * (1 - 1e-6)) bad.missing++
          }
        }
      }
      expect(bad).toEqual({ self: 0, duplicate: 0, order: 0, low: 0, outside: 0, missing: 0 })
    },
    60_000,
  )
})
