import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeNpy } from '../../formats/index.ts'
import { spawnLocalWorker } from '../../framework/spawn.ts'
import { WorkerPool } from '../../framework/worker-pool.ts'
import { createRng } from '../../random/rng.ts'
import { generateBlobs } from '../accel/test-support/blobs.ts'
import { readCheckpoint } from '../checkpoint.ts'
import type { AssignKernel } from '../kernels/assign-kernel.ts'
import { createOrtKernel } from '../kernels/ort-kernel.ts'
import { assignReference, rowDistanceSq } from '../kernels/reference-kernel.ts'
import { initToCheckpoint } from '../run-kmeans.ts'
import { computeInit, INIT_METHODS, initFromFile } from './compute-init.ts'
import { INIT_SAMPLE_ROWS } from './init-sample.ts'
import { kmeansPlusPlus } from './kmeans-plus-plus.ts'
import { weightedKmeansPlusPlus } from './weighted-kmeans-plus-plus.ts'

function inertia(points: Float32Array, centroids: Float32Array, d: number): number {
  return assignReference(points, centroids, d).distancesSq.reduce((s, v) => s + v, 0)
}

describe('blocked k-means++ (weightedKmeansPlusPlus)', () => {
  it('draws a pick made while earlier picks are still pending from the exact D² distribution', async () => {
    // 1-d, 20 far-apart clusters of 3 points. Pick 17 is drawn while pick 16 is pending (not yet
    // in the stale D²), so without the rejection step it would often land in pick 16's cluster.
    const clusters = 20
    const m = clusters * 3
    const rows = new Float32Array(m)
    for (let c = 0; c < clusters; c++) for (let i = 0; i < 3; i++) rows[c * 3 + i] = c * 100 + i * 1.5
    const weights = new Float64Array(m).fill(1)
    const trials = 1500
    const bins = new Array(10).fill(0)
    const pitRng = createRng(99)
    for (let seed = 0; seed < trials; seed++) {
      const picks = await weightedKmeansPlusPlus(rows, weights, m, 1, 18, createRng(seed))
      // Exact P(pick 17 = r | picks 0..16) ∝ D²(r); its randomised PIT is uniform iff the draw is exact.
      const dSq = Array.from({ length: m }, (_, r) =>
        Math.min(...Array.from(picks.subarray(0, 17), (p) => rowDistanceSq(rows, r, rows, p, 1))),
      )
      const total = dSq.reduce((a, b) => a + b, 0)
      const chosen = picks[17]!
      let below = 0
      for (let r = 0; r < chosen; r++) below += dSq[r]!
      const u = (below + pitRng.next() * dSq[chosen]!) / total
      bins[Math.min(9, Math.floor(u * 10))]++
    }
    // χ² with 9 degrees of freedom: 27.9 is its 0.999 quantile.
    const expected = trials / 10
    const chi2 = bins.reduce((s, b) => s + (b - expected) ** 2 / expected, 0)
    expect(chi2).toBeLessThan(27.9)
  })

  it('matches sequential k-means++ in expected inertia (unit weights, many seeds)', async () => {
    const n = 600
    const d = 4
    const k = 40
    const { points } = generateBlobs({ n, d, blobs: 12, seed: 3, spread: 20 })
    let blocked = 0
    let sequential = 0
    const seeds = 40
    for (let seed = 0; seed < seeds; seed++) {
      blocked += inertia(points, await computeInit('kmeans++', points, n, d, k, seed), d) / seeds
      sequential += inertia(points, kmeansPlusPlus(points, d, k, createRng(seed)), d) / seeds
    }
    expect(Math.abs(blocked - sequential) / sequential).toBeLessThan(0.05)
  })
})

describe('computeInit on the ORT kernel', () => {
  const n = 20_000
  const d = 32
  const k = 256
  const { points } = generateBlobs({ n, d, blobs: 400, seed: 5, spread: 10 })
  let kernel: AssignKernel

  beforeAll(async () => {
    kernel = await createOrtKernel({ intraOpNumThreads: 2 })
  })
  afterAll(() => kernel.dispose())

  it('k-means|| and k-means++ give low inertia after init, k-means|| within 10 % of k-means++', async () => {
    const mean = async (method: (typeof INIT_METHODS)[number]) => {
      let sum = 0
      for (const seed of [1, 2, 3])
        sum += inertia(points, await computeInit(method, points, n, d, k, seed, kernel), d)
      return sum / 3
    }
    const plusPlus = await mean('kmeans++')
    const parallel = await mean('kmeans-parallel')
    const random = await mean('random')
    expect(parallel).toBeLessThan(1.1 * plusPlus)
    // D² seeding is what buys the quality: both clearly beat k random rows on blobs.
    expect(plusPlus).toBeLessThan(0.8 * random)
    expect(parallel).toBeLessThan(0.8 * random)
  })

  it('is deterministic for a seed, and the seed matters', async () => {
    for (const method of INIT_METHODS) {
      const a = await computeInit(method, points, n, d, k, 11, kernel)
      expect(await computeInit(method, points, n, d, k, 11, kernel)).toEqual(a)
      expect(await computeInit(method, points, n, d, k, 12, kernel)).not.toEqual(a)
    }
  })
})

describe('initToCheckpoint', () => {
  let dir: string
  const n = 500
  const d = 6
  const { points } = generateBlobs({ n, d, blobs: 5, seed: 8 })

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'codebook-init-'))
    await writeNpy(join(dir, 'x.npy'), points, n, d)
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('computes every method on a worker process into checkpoint 0, equal to the in-process centroids; a bad method (refused by the message schema) or k is a coded error', async () => {
    const pool = await WorkerPool.start({ workers: 2, spawn: spawnLocalWorker })
    const out = join(dir, 'checkpoints')
    try {
      for (const method of INIT_METHODS) {
        const req = { file: join(dir, 'x.npy'), method, k: 7, seed: 4, kernel: 'reference' }
        const expected = await computeInit(method, points, n, d, 7, 4)
        for (const rank of [0, 1]) {
          await initToCheckpoint(pool, req, out, rank)
          expect(await readCheckpoint(out, 0, 7, d)).toEqual(expected)
        }
      }
      await expect(
        initToCheckpoint(
          pool,
          { file: join(dir, 'x.npy'), method: 'kmeans+' as 'kmeans++', k: 3, seed: 1 },
          out,
        ),
      ).rejects.toMatchObject({ code: 'CONTROL_BAD_MESSAGE', message: expect.stringMatching(/method/) })
      await expect(
        initToCheckpoint(pool, { file: join(dir, 'x.npy'), method: 'kmeans++', k: n + 1, seed: 1 }, out),
      ).rejects.toMatchObject({
        code: 'KMEANS_BAD_K',
        message: expect.stringMatching(/k = 501 exceeds the 500/),
      })
    } finally {
      await pool.close()
    }
  })
})

describe('initFromFile beyond the init sample', () => {
  it('a random init of k > the 100,000-row sample draws k distinct rows of the whole file; k-means++ there is refused, naming random', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'codebook-init-big-'))
    try {
      // 2n rows, every row a distinct integer pair: a centroid copied from a row names its row.
      const n = 2 * INIT_SAMPLE_ROWS + 10
      const d = 2
      const rows = new Float32Array(n * d)
      for (let i = 0; i < n; i++) {
        rows[i * d] = i
        rows[i * d + 1] = -i
      }
      const file = join(dir, 'big.npy')
      await writeNpy(file, rows, n, d)
      const k = INIT_SAMPLE_ROWS + 5_000
      const { centroids } = await initFromFile({ file, method: 'random', k, seed: 3 })
      const picked = new Set<number>()
      for (let j = 0; j < k; j++) {
        const i = centroids[j * d]!
        expect(Number.isInteger(i) && i >= 0 && i < n && centroids[j * d + 1] === -i).toBe(true)
        picked.add(i)
      }
      expect(picked.size).toBe(k)
      await expect(initFromFile({ file, method: 'kmeans++', k, seed: 3 })).rejects.toMatchObject({
        code: 'KMEANS_BAD_K',
        message: expect.stringMatching(/init random samples k rows/),
      })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
