import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { randomInit } from '../init/random-init.ts'
import { createOrtKernel, type OrtKernel } from '../kernels/ort-kernel.ts'
import { assignReference, createReferenceKernel } from '../kernels/reference-kernel.ts'
import { createLloydState } from './lloyd.ts'
import { createNeighbourhoodState } from './neighbourhood-state.ts'
import { generateBlobs } from './test-support/blobs.ts'
import { lloydUpdate } from './test-support/exact.ts'

describe('assignment strategies without bounds', () => {
  let ort: OrtKernel
  beforeAll(async () => {
    ort = await createOrtKernel({ intraOpNumThreads: 1 })
  })
  afterAll(async () => {
    await ort.dispose()
  })

  it('the neighbourhood re-scan and Lloyd give the reference labels every iteration', async () => {
    // Ten centroids per tight blob, as at large k: the neighbourhoods are small and settle most points.
    const n = 12_000
    const d = 8
    const k = 4096
    const { points } = generateBlobs({ n, d, blobs: 410, seed: 71, spread: 10, sigma: 0.3 })
    let centroids = randomInit(points, n, d, k, createRng(73)).centroids
    const states = [
      createNeighbourhoodState(points, n, d),
      createNeighbourhoodState(points, n, d, { dense: ort }),
      // ORT without the threshold lists and batched products: TopK lists, TypeScript distances.
      createNeighbourhoodState(points, n, d, { dense: { ...ort, within: undefined, listDots: undefined } }),
      // Lloyd on the reference kernel: the definition of these labels (ORT's float32 pass may rank near-ties otherwise).
      createLloydState(points, n, d, createReferenceKernel()),
    ]
    let neighbourhoodsUsed = 0
    for (let iteration = 0; iteration < 4; iteration++) {
      const ref = assignReference(points, centroids, d)
      for (const state of states) {
        const got = await state.assign(centroids, k)
        expect(got.labels, state.name).toEqual(ref.labels)
        if (got.centroidDistancesEvaluated > 0) neighbourhoodsUsed++
      }
      centroids = lloydUpdate(points, ref.labels, centroids, d, k)
    }
    expect(neighbourhoodsUsed).toBeGreaterThan(0)
  }, 120_000)
})
