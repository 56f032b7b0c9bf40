import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import type { AccelState } from './accel/accel-state.ts'
import { lloydUpdate } from './accel/test-support/exact.ts'
import { generateByteBlobs } from './byte-blobs.ts'
import { type ByteNearestTwoKernel, createByteHamerlyState } from './byte-lloyd.ts'
import { createInt8Kernel, type Int8Kernel } from './kernels/int8-kernel.ts'
import { createOrtKernel, type OrtKernel } from './kernels/ort-kernel.ts'
import { assignReference } from './kernels/reference-kernel.ts'

// Hamerly over uint8 points with its full nearest-two passes on the int8 kernel's bytes (exact,
// error bound 0) and the rest on the float32 ORT kernel: the reference labels every iteration.

/** HOG-like bytes with the hard cases: duplicated rows, an all-0 / all-255 alternating row, extremes. */
function adversarialBytes(n: number, d: number, seed: number): Uint8Array {
  const points = generateByteBlobs({ n, d, blobs: 3, seed, sigma: 30 })
  points.copyWithin((n - 40) * d, 0, 40 * d)
  for (let t = 0; t < d; t++) {
    points[(n - 41) * d + t] = t % 2 === 0 ? 255 : 0
    points[(n - 42) * d + t] = 0
    points[(n - 43) * d + t] = 255
  }
  return points
}

/** k rows of the points as centroids; centroid 1 duplicates centroid 0 (exact ties), centroid 2 sits a float32 ulp from centroid 3. */
function adversarialInit(points: Uint8Array, d: number, k: number, seed: number): Float32Array {
  const rng = createRng(seed)
  const n = points.length / d
  const init = new Float32Array(k * d)
  for (let j = 0; j < k; j++) {
    const i = rng.int(n)
    for (let t = 0; t < d; t++) init[j * d + t] = points[i * d + t]
  }
  init.copyWithin(d, 0, d)
  init.copyWithin(3 * d, 2 * d, 3 * d)
  init[3 * d] = init[2 * d] + Math.max(init[2 * d] * 2 ** -23, 2 ** -126)
  return init
}

describe('Hamerly with its full passes on the int8 kernel over uint8 points', () => {
  let ort: OrtKernel
  const int8: Int8Kernel[] = []
  beforeAll(async () => {
    ort = await createOrtKernel({ intraOpNumThreads: 1, blockRows: 128 })
    int8.push(await createInt8Kernel({ intraOpNumThreads: 1, blockRows: 37, levels: 127 }))
    int8.push(await createInt8Kernel({ intraOpNumThreads: 1, blockRows: 37, levels: 63 }))
    // Short lists: the wider re-run and full exact rows of the nearest-two pass.
    int8.push(
      await createInt8Kernel({ intraOpNumThreads: 1, blockRows: 16, candidates: 2, wideCandidates: 3 }),
    )
  })
  afterAll(async () => {
    await ort.dispose()
    for (const k of int8) await k.dispose()
  })

  const variants: Array<[string, { movedSet?: boolean; neighbours?: boolean }]> = [
    ['moved sets', {}],
    ['classic', { movedSet: false }],
    ['neighbourhood re-scans', { neighbours: true }],
  ]
  for (const [name, options] of variants) {
    it(`gives the reference labels every iteration (${name}), the first pass on bytes`, async () => {
      const n = 900
      const d = 24
      const k = 40
      const bytes = adversarialBytes(n, d, 21)
      const points = Float32Array.from(bytes)
      for (const kernel of int8) {
        let byteCalls = 0
        const counting: ByteNearestTwoKernel = {
          name: kernel.name,
          assign: kernel.assign,
          assignBytes: kernel.assignBytes,
          dispose: async () => {},
          nearestTwoBytes: (p, c, dim) => {
            byteCalls++
            expect(p).toBe(bytes)
            return kernel.nearestTwoBytes(p, c, dim)
          },
        }
        // denseMinWork 0: every re-scan goes to the kernels, so this small set exercises the dense paths.
        const state: AccelState = createByteHamerlyState(points, bytes, n, d, counting, ort, {
          ...options,
          denseMinWork: 0,
        })
        let centroids = adversarialInit(bytes, d, k, 22)
        const reassigned: number[] = []
        for (let iteration = 0; iteration < 10; iteration++) {
          const ref = assignReference(points, centroids, d)
          const got = await state.assign(centroids, k)
          expect(got.labels, `iteration ${iteration}`).toEqual(ref.labels)
          if (iteration === 0) expect(byteCalls).toBe(1)
          reassigned.push(got.changed)
          centroids = lloydUpdate(points, ref.labels, centroids, d, k)
        }
        // The run moves, and later iterations are bounded (not all full passes).
        expect(reassigned.at(-1)).toBeLessThan(reassigned[1]!)
      }
    }, 60_000)
  }
})
