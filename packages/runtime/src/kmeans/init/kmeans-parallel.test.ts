import { describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { generateBlobs } from '../accel/test-support/blobs.ts'
import { createReferenceKernel } from '../kernels/reference-kernel.ts'
import { kmeansParallelInit } from './kmeans-parallel.ts'
import { randomInit, sampleDistinctIndices } from './random-init.ts'
import { weightedKmeansPlusPlus } from './weighted-kmeans-plus-plus.ts'

function rowsOf(points: Float32Array, indices: Int32Array, d: number): Float32Array {
  const out = new Float32Array(indices.length * d)
  indices.forEach((i, j) => {
    out.set(points.subarray(i * d, i * d + d), j * d)
  })
  return out
}

describe('k-means||', () => {
  const n = 1000
  const d = 5
  const k = 12

  it('returns k distinct data rows, and the centroids are those rows', async () => {
    const { points } = generateBlobs({ n, d, blobs: 0, seed: 7 })
    const { centroids, indices } = await kmeansParallelInit(points, n, d, k, { rng: createRng(1) })
    expect(indices.length).toBe(k)
    expect(new Set(indices).size).toBe(k)
    for (const i of indices) expect(i >= 0 && i < n).toBe(true)
    expect(centroids).toEqual(rowsOf(points, indices, d))
  })

  it('is deterministic under a seed (and the seed matters)', async () => {
    const { points } = generateBlobs({ n, d, blobs: 0, seed: 8 })
    const a = await kmeansParallelInit(points, n, d, k, { rng: createRng(42) })
    const b = await kmeansParallelInit(points, n, d, k, { rng: createRng(42) })
    const c = await kmeansParallelInit(points, n, d, k, { rng: createRng(43) })
    expect(a.indices).toEqual(b.indices)
    expect(a.indices).not.toEqual(c.indices)
  })

  it('gives the same result through a kernel as through the built-in exact loop', async () => {
    const { points } = generateBlobs({ n: 300, d, blobs: 4, seed: 9 })
    const plain = await kmeansParallelInit(points, 300, d, 6, { rng: createRng(5) })
    const viaKernel = await kmeansParallelInit(points, 300, d, 6, {
      rng: createRng(5),
      kernel: createReferenceKernel(),
    })
    expect(viaKernel.indices).toEqual(plain.indices)
  })

  it('picks one centre per well-separated blob', async () => {
    const blobs = 10
    const { points, blobOf } = generateBlobs({ n: 2000, d: 8, blobs, seed: 11, spread: 100, sigma: 0.5 })
    let perfect = 0
    for (let seed = 0; seed < 10; seed++) {
      const { indices } = await kmeansParallelInit(points, 2000, 8, blobs, { rng: createRng(seed) })
      if (new Set([...indices].map((i) => blobOf[i])).size === blobs) perfect++
    }
    // k-means|| with ℓ = k almost always covers every blob; allow one unlucky seed in ten.
    expect(perfect).toBeGreaterThanOrEqual(9)
  })

  it('tops up with distinct rows when the data has fewer distinct points than k', async () => {
    const points = new Float32Array(20 * 2)
    for (let i = 0; i < 20; i++) points.set([i % 3, 0], i * 2)
    const { indices } = await kmeansParallelInit(points, 20, 2, 8, { rng: createRng(2) })
    expect(new Set(indices).size).toBe(8)
  })

  it('rejects k > n', async () => {
    await expect(
      kmeansParallelInit(new Float32Array(4), 2, 2, 3, { rng: createRng(1) }),
    ).rejects.toMatchObject({ code: 'INIT_BAD_K' })
  })
})

describe('weighted k-means++', () => {
  it('never picks a zero-weight row while weighted rows remain, and picks k distinct rows', async () => {
    const rows = new Float32Array([0, 10, 20, 30, 40])
    const weights = new Float64Array([1, 0, 1, 0, 1])
    for (let seed = 0; seed < 20; seed++) {
      const picked = await weightedKmeansPlusPlus(rows, weights, 5, 1, 3, createRng(seed))
      expect([...picked].sort()).toEqual([0, 2, 4])
    }
  })
})

describe('random init', () => {
  it('draws k distinct indices, deterministically under a seed', () => {
    const a = sampleDistinctIndices(50, 50, createRng(3))
    expect(new Set(a).size).toBe(50)
    expect(sampleDistinctIndices(1e6, 100, createRng(4))).toEqual(
      sampleDistinctIndices(1e6, 100, createRng(4)),
    )
  })

  it('is roughly uniform over the rows', () => {
    const counts = new Array(10).fill(0)
    const rng = createRng(5)
    for (let trial = 0; trial < 2000; trial++) for (const i of sampleDistinctIndices(10, 3, rng)) counts[i]++
    // Each row is expected 600 times; 5 standard deviations is about ±100.
    for (const c of counts) expect(Math.abs(c - 600)).toBeLessThan(110)
  })

  it('copies the chosen rows', () => {
    const points = new Float32Array([0, 1, 2, 3, 4, 5])
    const { centroids, indices } = randomInit(points, 3, 2, 2, createRng(6))
    expect(centroids).toEqual(rowsOf(points, indices, 2))
  })
})
