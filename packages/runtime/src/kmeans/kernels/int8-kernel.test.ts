import fc from 'fast-check'
import * as ort from 'onnxruntime-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { bruteForce } from '../accel/test-support/exact.ts'
import { generateByteBlobs } from '../byte-blobs.ts'
import { buildInt8CandidateModel, INT8_GRAPH_INPUTS, INT8_GRAPH_OUTPUTS } from './int8-graph.ts'
import {
  createInt8Kernel,
  type Int8Kernel,
  int8GraphConstants,
  int8ScoreErrorBound,
  probeInt8Saturation,
  quantiseCentroids,
} from './int8-kernel.ts'
import { assignReference, rowDistanceSq } from './reference-kernel.ts'

/** Seeded HOG-like bytes (see generateByteBlobs). */
function byteBlobs(n: number, d: number, blobs: number, seed: number, sigma = 12): Uint8Array {
  return generateByteBlobs({ n, d, blobs, seed, sigma })
}

/** k rows of the points (as float32 centroids), optionally nudged by up to ±`jitter`. */
function sampleCentroids(points: Uint8Array, d: number, k: number, seed: number, jitter = 0): Float32Array {
  const rng = createRng(seed)
  const n = points.length / d
  const out = new Float32Array(k * d)
  for (let j = 0; j < k; j++) {
    const i = rng.int(n)
    for (let t = 0; t < d; t++) out[j * d + t] = points[i * d + t] + jitter * (2 * rng.next() - 1)
  }
  return out
}

/**
 * The int8 kernel must give the reference labels and distances, bit for bit; with k ≥ 2 its
 * `nearestTwoBytes` too (see {@link expectNearestTwo}), and `nearestBoundsBytes` valid bounds (see
 * {@link expectNearestBounds}). Returns `assignBytes`'s statistics.
 */
async function expectReference(kernel: Int8Kernel, points: Uint8Array, centroids: Float32Array, d: number) {
  const got = await kernel.assignBytes(points, centroids, d)
  const ref = assignReference(Float32Array.from(points), centroids, d)
  expect(Array.from(got.labels)).toEqual(Array.from(ref.labels))
  expect(Array.from(got.distancesSq)).toEqual(Array.from(ref.distancesSq))
  const stats = kernel.lastPass
  if (centroids.length / d >= 2) await expectNearestTwo(kernel, points, centroids, d)
  await expectNearestBounds(kernel, points, centroids, d, ref.labels)
  return stats
}

/**
 * `nearestBoundsBytes` must visit every point once with the reference label (`labels`) and the
 * exact `rowDistanceSq` to it, and bounds no larger than the exact squared distance of any other
 * centroid (a listed one's own, else the floor): Yinyang's group bounds.
 */
async function expectNearestBounds(
  kernel: Int8Kernel,
  points: Uint8Array,
  centroids: Float32Array,
  d: number,
  labels: Int32Array,
) {
  const wide = Float32Array.from(points)
  const n = points.length / d
  const k = centroids.length / d
  const visits = new Int32Array(n)
  const low = new Float64Array(k)
  let wrong = 0
  let invalid = 0
  await kernel.nearestBoundsBytes(points, centroids, d, (i, label, nearestSq, ids, lowSq, count, floorSq) => {
    visits[i]++
    if (label !== labels[i] || nearestSq !== rowDistanceSq(wide, i, centroids, label, d)) wrong++
    low.fill(floorSq)
    for (let c = 0; c < count; c++) low[ids[c]] = lowSq[c]
    for (let j = 0; j < k; j++)
      if (j !== label && !(low[j] <= rowDistanceSq(wide, i, centroids, j, d))) invalid++
  })
  expect([wrong, invalid]).toEqual([0, 0])
  expect(visits.every((v) => v === 1)).toBe(true)
}

/**
 * `nearestTwoBytes` must give, per point, the brute-force float64 nearest (ties to the lowest
 * index), the exact `rowDistanceSq` to it and the second smallest one over every other centroid,
 * and ‖x‖², all bit for bit (it says `exact`: Hamerly takes them with error bound 0).
 */
async function expectNearestTwo(kernel: Int8Kernel, points: Uint8Array, centroids: Float32Array, d: number) {
  const got = await kernel.nearestTwoBytes(points, centroids, d)
  expect(got.exact).toBe(true)
  const wide = Float32Array.from(points)
  const n = points.length / d
  const k = centroids.length / d
  const want = bruteForce(wide, n, d, centroids, k)
  const distancesSq = new Float64Array(2 * n)
  for (let i = 0; i < n; i++) {
    distancesSq[2 * i] = want.bestSq[i]
    distancesSq[2 * i + 1] = want.secondSq[i]
  }
  expect(Array.from(got.labels)).toEqual(Array.from(want.best))
  expect(Array.from(got.distancesSq)).toEqual(Array.from(distancesSq))
  const zero = new Float32Array(d)
  const normsSq = Array.from({ length: n }, (_, i) => rowDistanceSq(wide, i, zero, 0, d))
  expect(Array.from(got.pointNormsSq ?? [])).toEqual(normsSq)
}

describe('int8 kernel', () => {
  const kernels: Int8Kernel[] = []
  let k8: Int8Kernel
  let k7: Int8Kernel
  let tight: Int8Kernel
  beforeAll(async () => {
    // Small blocks and lists so that block edges, the wider re-run and full rows are all exercised.
    k8 = await createInt8Kernel({ intraOpNumThreads: 1, blockRows: 37, levels: 127 })
    k7 = await createInt8Kernel({ intraOpNumThreads: 1, blockRows: 37, levels: 63 })
    tight = await createInt8Kernel({ intraOpNumThreads: 1, blockRows: 16, candidates: 1, wideCandidates: 2 })
    kernels.push(k8, k7, tight)
  })
  afterAll(async () => {
    for (const k of kernels) await k.dispose()
  })

  it('finds this machine exact at 8 bits or falls back to 7 (and says which)', async () => {
    const auto = await createInt8Kernel({ intraOpNumThreads: 1 })
    kernels.push(auto)
    const saturates = await probeInt8Saturation()
    expect(auto.levels).toBe(saturates ? 63 : 127)
  })

  for (const [name, n, d, k] of [
    ['blobs', 600, 64, 40],
    ['tiny d = 1', 300, 1, 7],
    ['d = 2', 300, 2, 9],
    ['d = 3, k = 2', 200, 3, 2],
    ['k = 1', 100, 16, 1],
  ] as const) {
    it(`gives the reference labels: ${name}`, async () => {
      const points = byteBlobs(n, d, 12, 3)
      const centroids = sampleCentroids(points, d, k, 4, 3)
      for (const kernel of [k8, k7, tight]) await expectReference(kernel, points, centroids, d)
    })
  }

  it('breaks exact ties to the lowest index (duplicated centroids and mirrored pairs)', async () => {
    const d = 8
    const points = byteBlobs(200, d, 4, 5)
    const base = sampleCentroids(points, d, 10, 6)
    // Each centroid twice (rows j and j + 10), plus pairs mirrored about a point: x ± 1 on one axis.
    const centroids = new Float32Array(22 * d)
    centroids.set(base)
    centroids.set(base, 10 * d)
    for (let t = 0; t < d; t++) {
      centroids[20 * d + t] = points[t]
      centroids[21 * d + t] = points[t]
    }
    centroids[20 * d] += 1
    centroids[21 * d] -= 1
    for (const kernel of [k8, k7, tight]) {
      const stats = await expectReference(kernel, points, centroids, d)
      expect(stats?.certain).toBeLessThan(200) // every point has a duplicate: none is certain alone
    }
  })

  it('settles near ties a float32 ulp apart and centroids that share their codes', async () => {
    const d = 32
    const points = byteBlobs(300, d, 6, 7)
    const base = sampleCentroids(points, d, 12, 8, 0.4)
    const centroids = new Float32Array(36 * d)
    centroids.set(base)
    for (let j = 0; j < 12; j++)
      for (let t = 0; t < d; t++) {
        const v = base[j * d + t]
        // A twin one float32 ulp up on one coordinate, and one moved by far less than a code step.
        centroids[(12 + j) * d + t] = t === j % d ? v + Math.max(v * 2 ** -23, 2 ** -126) : v
        centroids[(24 + j) * d + t] = v + (t % 2 ? 0.01 : -0.01)
      }
    const q = quantiseCentroids(centroids, d, 127, new Float64Array(d))
    // The twins quantise to the same codes as their originals (the test is about exactly that).
    let sameCodes = 0
    for (let j = 0; j < 12; j++) {
      let same = true
      for (let t = 0; t < d; t++)
        if (q.codes[t * q.paddedK + j] !== q.codes[t * q.paddedK + 12 + j]) same = false
      if (same) sameCodes++
    }
    expect(sameCodes).toBeGreaterThan(6)
    for (const kernel of [k8, k7, tight]) await expectReference(kernel, points, centroids, d)
  })

  it('handles 0 and 255 everywhere, duplicated points and centroids at the extremes', async () => {
    const d = 48
    const n = 240
    const rng = createRng(9)
    const points = new Uint8Array(n * d)
    for (let i = 0; i < n; i++)
      for (let t = 0; t < d; t++) {
        const kind = i % 4
        points[i * d + t] = kind === 0 ? 0 : kind === 1 ? 255 : rng.next() < 0.5 ? 0 : 255
      }
    points.copyWithin(100 * d, 0, 60 * d) // duplicated rows
    const centroids = sampleCentroids(points, d, 30, 10)
    centroids.fill(0, 0, d)
    centroids.fill(255, d, 2 * d)
    centroids.fill(127.5, 2 * d, 3 * d)
    for (const kernel of [k8, k7, tight]) await expectReference(kernel, points, centroids, d)
  })

  it('uses the wider list and full exact rows when a short list cannot prove a label', async () => {
    const d = 16
    const points = byteBlobs(400, d, 3, 11, 30)
    const centroids = sampleCentroids(points, d, 60, 12, 2)
    const stats = await expectReference(tight, points, centroids, d)
    expect(stats?.widened).toBeGreaterThan(0)
    expect(stats?.fullRows).toBeGreaterThan(0)
    // With the default lists most labels need no full row.
    const normal = await expectReference(k8, points, centroids, d)
    expect(normal?.fullRows).toBeLessThan(stats?.fullRows ?? 0)
  })

  it('float32 input of byte values goes through the same pass; other values are refused', async () => {
    const d = 8
    const points = byteBlobs(50, d, 3, 13)
    const centroids = sampleCentroids(points, d, 5, 14, 1)
    const got = await k8.assign(Float32Array.from(points), centroids, d)
    expect(Array.from(got.labels)).toEqual(
      Array.from(assignReference(Float32Array.from(points), centroids, d).labels),
    )
    await expect(k8.assign(new Float32Array(d).fill(0.5), centroids, d)).rejects.toMatchObject({
      code: 'KERNEL_NOT_BYTES',
    })
  })

  it('property: reference labels on random small byte data and centroids', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom(0, 0.5, 1e-3, 40),
        async (d, n, k, seed, jitter) => {
          const rng = createRng(seed)
          // Few distinct values, so duplicates and exact ties are common.
          const palette = [0, 1, 2, 128, 254, 255]
          const points = new Uint8Array(n * d)
          for (let i = 0; i < points.length; i++) points[i] = palette[rng.int(palette.length)]
          const centroids = sampleCentroids(points, d, k, seed + 1, jitter)
          for (const kernel of [k8, tight]) await expectReference(kernel, points, centroids, d)
        },
      ),
      { numRuns: 60, seed: Number(process.env.FUZZ_SEED ?? 33) },
    )
  })

  it('score error on worst-case rows: 2x·e (the closed form) and within the bound, which it nearly reaches', async () => {
    const d = 256
    const k = 4
    const rng = createRng(15)
    const centroids = new Float32Array(k * d)
    for (let i = 0; i < centroids.length; i++) centroids[i] = Math.fround(255 * rng.next())
    for (const levels of [127, 63]) {
      // μ = 127.5 (the mean of the rows below), so x − μ = ±127.5 along sign(e_j): Cauchy–Schwarz's worst case.
      const anchor = new Float64Array(d).fill(127.5)
      const q = quantiseCentroids(centroids, d, levels, anchor)
      const rows = new Uint8Array(2 * k * d)
      const e = (j: number, t: number) =>
        centroids[j * d + t] - q.scales[j] * (q.codes[t * q.paddedK + j] - q.zeroPoints[j])
      for (let j = 0; j < k; j++)
        for (let t = 0; t < d; t++) {
          rows[2 * j * d + t] = e(j, t) > 0 ? 255 : 0
          rows[(2 * j + 1) * d + t] = e(j, t) > 0 ? 0 : 255
        }
      const session = await ort.InferenceSession.create(buildInt8CandidateModel(int8GraphConstants(q)), {
        intraOpNumThreads: 1,
      })
      const m = 2 * k
      const out = await session.run({
        [INT8_GRAPH_INPUTS.points]: new ort.Tensor('uint8', rows, [m, d]),
        [INT8_GRAPH_INPUTS.count]: new ort.Tensor('int64', BigInt64Array.from([BigInt(k)]), [1]),
        [INT8_GRAPH_INPUTS.groupCount]: new ort.Tensor('int64', BigInt64Array.from([BigInt(q.groups)]), [1]),
      })
      const values = out[INT8_GRAPH_OUTPUTS.values].data as Float32Array
      const slots = out[INT8_GRAPH_OUTPUTS.slots].data as Int32Array
      const groups = out[INT8_GRAPH_OUTPUTS.groups].data as Int32Array
      await session.release()
      for (let r = 0; r < m; r++) {
        const j = r >> 1 // the centroid this row is worst for
        let xNormSq = 0
        let centredSq = 0
        let xc = 0
        let xe = 0
        for (let t = 0; t < d; t++) {
          const x = rows[r * d + t]
          xNormSq += x * x
          centredSq += (x - 127.5) ** 2
          xc += x * centroids[j * d + t]
          xe += x * e(j, t)
        }
        const c = Array.from(slots.subarray(r * k, (r + 1) * k)).findIndex(
          (slot) => groups[r * q.groups + Math.floor(slot / q.width)] * q.width + (slot % q.width) === j,
        )
        const exact = q.normsSq[j] - 2 * xc
        const error = values[r * k + c] - exact
        const rounding = 4 * 2 ** -24 * (2 * Math.sqrt(xNormSq) * q.maxDequantisedNorm + q.maxNorm ** 2)
        // Closed form: the score's error is 2x·e_j up to float32 rounding (saturation would break this).
        expect(Math.abs(error - 2 * xe)).toBeLessThanOrEqual(rounding)
        const bound = int8ScoreErrorBound(
          q,
          Math.sqrt(xNormSq),
          Math.sqrt(centredSq),
          q.errorNorms[j],
          q.anchorDots[j],
        )
        const cauchySchwarz = 2 * (Math.sqrt(centredSq) * q.errorNorms[j] + q.anchorDots[j])
        expect(Math.abs(error)).toBeLessThanOrEqual(bound)
        expect(bound).toBeLessThanOrEqual(
          cauchySchwarz + 2 * rounding + 1e-8 * (Math.sqrt(xNormSq) + q.maxNorm) ** 2,
        )
        // These rows are the worst case: the error reaches most of Cauchy–Schwarz (uniform e: ≈ √3/2).
        expect(Math.abs(error)).toBeGreaterThan(0.6 * cauchySchwarz)
      }
    }
  })

  it('quantises within half a step and keeps codes and zero points in range', () => {
    const d = 20
    const rng = createRng(16)
    const centroids = new Float32Array(50 * d)
    for (let j = 0; j < 50; j++) {
      const lo = j % 5 === 0 ? -300 * rng.next() : 255 * rng.next()
      const span = j % 7 === 0 ? 0 : 300 * rng.next()
      for (let t = 0; t < d; t++) centroids[j * d + t] = Math.fround(lo + span * rng.next())
    }
    for (const levels of [127, 63]) {
      const q = quantiseCentroids(centroids, d, levels, new Float64Array(d))
      for (let j = 0; j < 50; j++) {
        for (let t = 0; t < d; t++) {
          const code = q.codes[t * q.paddedK + j]
          expect(Math.abs(code)).toBeLessThanOrEqual(levels)
          const err = centroids[j * d + t] - q.scales[j] * (code - q.zeroPoints[j])
          expect(Math.abs(err)).toBeLessThanOrEqual(q.scales[j] / 2 + 1e-9)
        }
        expect(q.errorNorms[j]).toBeLessThanOrEqual((q.scales[j] / 2) * Math.sqrt(d) * (1 + 1e-9))
      }
    }
  })
})
