import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import type { AccelState } from './accel/accel-state.ts'
import type { GroupedBoundsState } from './accel/grouped-pass.ts'
import { createHamerlyState, type HamerlyOptions } from './accel/hamerly.ts'
import { lloydUpdate } from './accel/test-support/exact.ts'
import { createYinyangState, type YinyangOptions } from './accel/yinyang.ts'
import { generateByteBlobs } from './byte-blobs.ts'
import { type ByteFullPassKernel, bytePasses } from './byte-lloyd.ts'
import { createInt8Kernel, type Int8Kernel } from './kernels/int8-kernel.ts'
import { createOrtKernel, type OrtKernel } from './kernels/ort-kernel.ts'
import { assignReference, rowDistanceSq } from './kernels/reference-kernel.ts'

// Hamerly and Yinyang over uint8 points with their full nearest-two passes on the int8 kernel's
// bytes (exact, error bound 0) and the rest on the float32 ORT kernel: the reference labels every
// iteration, and (Yinyang) valid group bounds after the first pass.

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

/**
 * Yinyang's group bounds after a pass (white box: its private `bounds`) must not exceed the exact
 * distance to any member of the group but the point's own centroid.
 */
function expectValidGroupBounds(state: AccelState, points: Float32Array, centroids: Float32Array, d: number) {
  const { n, lower, labels, groups } = (state as unknown as { bounds: GroupedBoundsState }).bounds
  const { t, groupOf } = groups
  const k = groupOf.length
  const exact = new Float64Array(t)
  let bad = 0
  for (let i = 0; i < n; i++) {
    exact.fill(Number.POSITIVE_INFINITY)
    for (let j = 0; j < k; j++) {
      if (j === labels[i]) continue
      const v = Math.sqrt(rowDistanceSq(points, i, centroids, j, d))
      if (v < exact[groupOf[j]]) exact[groupOf[j]] = v
    }
    for (let q = 0; q < t; q++) if (!(lower[i * t + q] <= exact[q])) bad++
  }
  expect(bad).toBe(0)
}

type Options = Omit<HamerlyOptions & YinyangOptions, 'dense' | 'allNearestTwo' | 'allNearestBounds'>

describe('Hamerly and Yinyang with their full passes on the int8 kernel over uint8 points', () => {
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

  const variants: Array<[string, 'hamerly' | 'yinyang', Options]> = [
    ['Hamerly, moved sets', 'hamerly', {}],
    ['Hamerly, classic', 'hamerly', { movedSet: false }],
    ['Hamerly, neighbourhood re-scans', 'hamerly', { neighbours: true }],
    ['Yinyang, grouped re-scans', 'yinyang', {}],
    ['Yinyang, nearest-two re-scans', 'yinyang', { rescan: 'auto' }],
  ]
  for (const [name, algorithm, options] of variants) {
    it(`gives the reference labels every iteration (${name}), the first pass on bytes`, async () => {
      const n = 900
      const d = 24
      const k = 40
      const bytes = adversarialBytes(n, d, 21)
      const points = Float32Array.from(bytes)
      for (const kernel of int8) {
        let byteCalls = 0
        const counting: ByteFullPassKernel = {
          name: kernel.name,
          assign: kernel.assign,
          assignBytes: kernel.assignBytes,
          dispose: async () => {},
          nearestTwoBytes: (p, c, dim) => {
            byteCalls++
            expect(p).toBe(bytes)
            return kernel.nearestTwoBytes(p, c, dim)
          },
          nearestBoundsBytes: (p, c, dim, visit) => {
            byteCalls++
            expect(p).toBe(bytes)
            return kernel.nearestBoundsBytes(p, c, dim, visit)
          },
        }
        // denseMinWork 0: every re-scan goes to the kernels, so this small set exercises the dense paths.
        const all = {
          ...options,
          dense: ort,
          ...bytePasses(counting, bytes),
          denseMinWork: 0,
        }
        const state: AccelState =
          algorithm === 'hamerly'
            ? createHamerlyState(points, n, d, all)
            : createYinyangState(points, n, d, all)
        let centroids = adversarialInit(bytes, d, k, 22)
        const reassigned: number[] = []
        for (let iteration = 0; iteration < 10; iteration++) {
          const ref = assignReference(points, centroids, d)
          const got = await state.assign(centroids, k)
          expect(got.labels, `iteration ${iteration}`).toEqual(ref.labels)
          if (iteration === 0) {
            expect(byteCalls).toBe(1)
            if (algorithm === 'yinyang') expectValidGroupBounds(state, points, centroids, d)
          }
          reassigned.push(got.changed)
          centroids = lloydUpdate(points, ref.labels, centroids, d, k)
        }
        // The run moves, and later iterations are bounded (not all full passes).
        expect(reassigned.at(-1)).toBeLessThan(reassigned[1]!)
      }
    }, 60_000)
  }
})
