import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { randomInit } from '../init/random-init.ts'
import type { DistanceMatrixKernel } from '../kernels/assign-kernel.ts'
import { createOrtKernel, type OrtKernel } from '../kernels/ort-kernel.ts'
import { assignReference, rowDistanceSq } from '../kernels/reference-kernel.ts'
import { rowNormsSq } from './dense-pass.ts'
import { createHamerlyState } from './hamerly.ts'
import { MOVED_LISTS_MIN, movedSetBounds } from './hamerly-moved-set.ts'
import { generateBlobs } from './test-support/blobs.ts'
import { lloydUpdate } from './test-support/exact.ts'

describe('movedSetBounds', () => {
  let ort: OrtKernel
  beforeAll(async () => {
    ort = await createOrtKernel({ intraOpNumThreads: 1 })
  })
  afterAll(async () => {
    await ort.dispose()
  })

  it('through neighbourhoods (large moved sets) and densely: each bound is ≤ the nearest moved centroid but the own, and ≥ the bound over all others', async () => {
    // Ten centroids per tight blob, as at large k, one Lloyd step in: every centroid has moved.
    const n = 12_000
    const d = 8
    const k = 4096
    const { points } = generateBlobs({ n, d, blobs: 410, seed: 81, spread: 10, sigma: 0.3 })
    const init = randomInit(points, n, d, k, createRng(83)).centroids
    const labels = assignReference(points, init, d).labels
    const current = lloydUpdate(points, labels, init, d, k)
    const rng = createRng(84)
    // A moved set of every other centroid (past MOVED_LISTS_MIN), in a shuffled order; the own one included for many points.
    const moved = Int32Array.from({ length: k / 2 }, (_, r) => 2 * r)
    for (let r = moved.length - 1; r > 0; r--) {
      const q = Math.floor(rng.next() * (r + 1))
      const t = moved[r] as number
      moved[r] = moved[q] as number
      moved[q] = t
    }
    expect(moved.length).toBeGreaterThanOrEqual(MOVED_LISTS_MIN)
    const allOthers = (i: number) => (i % 7 === 0 ? 0.05 : 0)
    const normsSq = rowNormsSq(points, n, d)
    let withinCalls = 0
    const viaLists: DistanceMatrixKernel = {
      ...ort,
      within: (p, c, t, dim) => {
        withinCalls++
        return ort.within(p, c, t, dim)
      },
    }
    const dense: DistanceMatrixKernel = { ...ort, within: undefined, listDots: undefined }
    const kernels = [viaLists, dense] as Array<
      DistanceMatrixKernel & Required<Pick<DistanceMatrixKernel, 'nearestExcluding'>>
    >
    const [lists, plain] = await Promise.all(
      kernels.map((kernel) =>
        movedSetBounds(points, n, d, labels, normsSq, kernel, current, k, moved, allOthers),
      ),
    )
    expect(withinCalls).toBeGreaterThan(0)
    let tight = 0
    let maxMovedNormSq = 0
    for (const j of moved)
      maxMovedNormSq = Math.max(maxMovedNormSq, rowDistanceSq(current, j, new Float32Array(d), 0, d))
    for (let i = 0; i < n; i++) {
      let nearest = Number.POSITIVE_INFINITY
      for (const j of moved)
        if (j !== labels[i]) nearest = Math.min(nearest, Math.sqrt(rowDistanceSq(points, i, current, j, d)))
      const own = Math.sqrt(rowDistanceSq(points, i, current, labels[i] as number, d))
      for (const bound of [lists, plain] as Float64Array[]) {
        expect(bound[i]).toBeLessThanOrEqual(nearest * (1 + 1e-9))
        expect(bound[i]).toBeGreaterThanOrEqual(allOthers(i))
      }
      // A moved centroid nearer than the own one is in the lists: measured as the dense pass does;
      // otherwise the lists' bound may be weaker, but not below the own distance (less the error bound).
      if (nearest <= own) {
        expect((lists as Float64Array)[i]).toBeCloseTo((plain as Float64Array)[i] as number, 2)
        tight++
      } else {
        // The lists' float32 values are lowered by twice the error bound at most.
        const eb = ort.distanceErrorBound(normsSq[i] as number, maxMovedNormSq, d)
        expect((lists as Float64Array)[i]).toBeGreaterThanOrEqual(
          Math.sqrt(Math.max(0, own * own - 2 * eb)) * (1 - 1e-9),
        )
      }
    }
    expect(tight).toBeGreaterThan(n / 100)
  }, 120_000)

  it('Hamerly with moved sets through neighbourhoods gives the reference labels every iteration', async () => {
    // Overlapping blobs, ten points per centroid: thousands of centroids still move in iteration 3.
    const n = 40_000
    const d = 8
    const k = 4096
    const { points } = generateBlobs({ n, d, blobs: 410, seed: 91, spread: 10, sigma: 1 })
    let centroids = randomInit(points, n, d, k, createRng(93)).centroids
    // Moved-set lists: `within` over fewer rows than k (the neighbourhood re-scan's run over all k).
    let movedLists = 0
    const kernel: DistanceMatrixKernel = {
      ...ort,
      within: (p, c, t, dim) => {
        if (c.length < k * dim) movedLists++
        return ort.within(p, c, t, dim)
      },
    }
    const state = createHamerlyState(points, n, d, { dense: kernel, denseMinWork: 0 })
    for (let iteration = 0; iteration < 6; iteration++) {
      const ref = assignReference(points, centroids, d)
      const got = await state.assign(centroids, k)
      expect(got.labels).toEqual(ref.labels)
      centroids = lloydUpdate(points, ref.labels, centroids, d, k)
    }
    expect(movedLists).toBeGreaterThan(0)
  }, 120_000)
})
