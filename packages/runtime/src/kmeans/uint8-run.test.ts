import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeNpy } from '../formats/index.ts'
import { spawnLocalWorker } from '../framework/spawn.ts'
import { WorkerPool } from '../framework/worker-pool.ts'
import { byteBenchData } from './bench-data.ts'
import { readCheckpoint } from './checkpoint.ts'
import { type KmeansRunOptions, type KmeansRunResult, runKmeans } from './run-kmeans.ts'

// A uint8 dataset through real workers: held as bytes and scanned by the int8 kernel under exact
// Lloyd (kernel `int8`; `auto` from INT8_AUTO_MIN_K centroids), and under Hamerly and Yinyang their
// full passes on the bytes, with the reference kernel's centroids bit for bit.

const N = 3000
const D = 24
const K = 12
let dir: string
let file: string
let init: Float32Array
let pool: WorkerPool

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-uint8-run-'))
  // HOG-like bytes: rounding and clipping give exact ties, zeros and 255s; a few duplicated rows too.
  const { points, init: rows } = byteBenchData(N, D, K, 6, 5)
  for (let i = 0; i < 40; i++) points.copyWithin((N - 1 - i) * D, i * D, i * D + D)
  for (let t = 0; t < D; t++) points[(N - 50) * D + t] = t % 2 === 0 ? 255 : 0
  file = join(dir, 'points.npy')
  await writeNpy(file, points, N, D)
  init = rows
  pool = await WorkerPool.start({ workers: 2, spawn: spawnLocalWorker, chunkBytes: 4096 })
}, 60_000)
afterAll(async () => {
  await pool?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

interface Traced {
  run: KmeansRunResult
  /** Each iteration's centroids, read from its checkpoint while the root waits for the report. */
  centroids: Float32Array[]
  inertia: number[]
  reassigned: number[]
}

async function traced(name: string, over: Partial<KmeansRunOptions>, k = K): Promise<Traced> {
  const checkpointDir = join(dir, name)
  const out: Omit<Traced, 'run'> = { centroids: [], inertia: [], reassigned: [] }
  const run = await runKmeans(pool, {
    data: { kind: 'npy', file, n: N, d: D },
    init,
    maxIterations: 8,
    tol: 0,
    slots: 2,
    broadcast: 'chain',
    chainOrder: 'topology',
    aggregation: 'three-stage',
    seed: 3,
    threadsPerTask: 1,
    checkpointDir,
    now: () => performance.now(),
    async onIteration(r) {
      out.centroids.push(await readCheckpoint(checkpointDir, r.iteration, k, D))
      out.inertia.push(r.inertia)
      out.reassigned.push(r.reassigned)
    },
    ...over,
  })
  return { run, ...out }
}

describe('uint8 data through real workers', () => {
  it('the int8 kernel on bytes gives the reference kernel centroids, inertia and reassignments every iteration, bit for bit', async () => {
    const reference = await traced('reference', { kernel: 'reference' })
    expect([reference.run.kernel, reference.run.heldAs]).toEqual(['reference', 'float32'])
    expect(reference.run.iterations).toBe(8)
    for (const kernel of ['int8']) {
      const bytes = await traced(kernel, { kernel })
      expect([bytes.run.kernel, bytes.run.heldAs], kernel).toEqual(['int8', 'uint8'])
      expect(bytes.centroids, kernel).toEqual(reference.centroids)
      expect(bytes.inertia, kernel).toEqual(reference.inertia)
      expect(bytes.reassigned, kernel).toEqual(reference.reassigned)
    }
    // The run moves: not a fixed point from the start.
    expect(reference.reassigned.at(-1)).toBeLessThan(reference.reassigned[0]!)
    expect(reference.centroids[0]).not.toEqual(reference.centroids.at(-1))
  }, 120_000)

  it('Hamerly and Yinyang on the int8 kernel (full passes on the bytes, the rest on float32) give the reference Lloyd centroids every iteration, bit for bit', async () => {
    // k = 64: each task's first pass is worth a kernel call (denseRescanPays), so it runs on bytes.
    const k = 64
    const { points, init: rows } = byteBenchData(N, D, k, 3, 9)
    for (let i = 0; i < 40; i++) points.copyWithin((N - 1 - i) * D, i * D, i * D + D)
    // Centroids 1 and 2 a float32 ulp apart (equal int8 codes), centroid 4 a copy of 3 (exact ties).
    rows.copyWithin(2 * D, D, 2 * D)
    rows[2 * D] = rows[D]! + Math.max(rows[D]! * 2 ** -23, 2 ** -126)
    rows.copyWithin(4 * D, 3 * D, 4 * D)
    const data = join(dir, 'points-k64.npy')
    await writeNpy(data, points, N, D)
    const over = { data: { kind: 'npy', file: data, n: N, d: D } } as const
    const cold = await traced('k64-reference', { ...over, init: rows, kernel: 'reference' }, k)
    expect(cold.reassigned.at(-1)).toBeLessThan(cold.reassigned[0]!)
    // Also from the second centroids: smaller drifts, so the first pass's bounds decide more labels.
    for (const [start, init] of [
      ['cold', rows],
      ['warm', cold.centroids[1]!],
    ] as const) {
      const reference =
        start === 'cold' ? cold : await traced(`k64-${start}`, { ...over, init, kernel: 'reference' }, k)
      for (const algorithm of ['hamerly', 'yinyang'] as const) {
        const name = `${start} ${algorithm}`
        const bytes = await traced(
          `k64-${start}-${algorithm}-int8`,
          { ...over, init, kernel: 'int8', algorithm },
          k,
        )
        expect([bytes.run.kernel, bytes.run.heldAs], name).toEqual(['int8', 'float32'])
        expect(bytes.centroids, name).toEqual(reference.centroids)
        expect(bytes.inertia, name).toEqual(reference.inertia)
        expect(bytes.reassigned, name).toEqual(reference.reassigned)
      }
    }
  }, 120_000)

  it('auto widens where bytes cannot be scanned; onnx forces float32', async () => {
    const cases: Array<[Partial<KmeansRunOptions>, string, string]> = [
      // Below INT8_AUTO_MIN_K centroids the float32 pass is the faster one.
      [{ kernel: 'auto' }, 'onnx', 'float32'],
      [{ kernel: 'auto', algorithm: 'hamerly' }, 'onnx', 'float32'],
      [{ kernel: 'auto', algorithm: 'yinyang' }, 'onnx', 'float32'],
      [{ kernel: 'auto', assignment: 'approximate' }, 'onnx', 'float32'],
      [{ kernel: 'onnx' }, 'onnx', 'float32'],
      // A forced int8 kernel under Hamerly or Yinyang: bounds need float32 points (bytes kept for the full passes).
      [{ kernel: 'int8', algorithm: 'hamerly' }, 'int8', 'float32'],
      [{ kernel: 'int8', algorithm: 'yinyang' }, 'int8', 'float32'],
    ]
    for (const [over, kernel, heldAs] of cases) {
      const { run } = await traced(`case-${kernel}-${over.algorithm ?? over.assignment}`, {
        ...over,
        maxIterations: 2,
        onIteration: undefined,
      })
      expect([run.kernel, run.heldAs], JSON.stringify(over)).toEqual([kernel, heldAs])
    }
  }, 120_000)
})

describe('a worker holding uint8 data', () => {
  const d = 512
  const n = 131_072

  /**
   * A fresh worker's peak RSS growth from a 1,024-row run (it loads onnxruntime and the kernels'
   * sessions: the baseline) to an n-row one (64 MiB of bytes), one iteration on kernel int8 under
   * `algorithm`, and how the worker held the rows. Peak RSS never falls, so each case has its own worker.
   */
  async function rssGrowth(algorithm: 'lloyd' | 'hamerly'): Promise<{ grown: number; heldAs: string }> {
    const single = await WorkerPool.start({ workers: 1, spawn: spawnLocalWorker })
    try {
      const k = 4
      let heldAs = ''
      async function peakRss(rows: number): Promise<number> {
        // A cheap deterministic fill (an LCG's high byte): generating normals for 64 MiB is slow.
        const points = new Uint8Array(rows * d)
        let x = rows
        for (let i = 0; i < points.length; i++) {
          x = (Math.imul(x, 1_664_525) + 1_013_904_223) >>> 0
          points[i] = x >>> 24
        }
        const data = join(dir, `rss-${algorithm}-${rows}.npy`)
        await writeNpy(data, points, rows, d)
        let rss = 0
        const run = await runKmeans(single, {
          data: { kind: 'npy', file: data, n: rows, d },
          init: Float32Array.from(points.subarray(0, k * d)),
          maxIterations: 1,
          tol: 0,
          slots: 1,
          broadcast: 'chain',
          chainOrder: 'topology',
          aggregation: 'three-stage',
          seed: 1,
          kernel: 'int8',
          algorithm,
          threadsPerTask: 1,
          now: () => performance.now(),
          onIteration: (r) => {
            rss = r.workers[0]!.maxRssBytes ?? 0
          },
        })
        heldAs = run.heldAs ?? ''
        await rm(data)
        return rss
      }
      const base = await peakRss(1024)
      return { grown: (await peakRss(n)) - base, heldAs }
    } finally {
      await single.close()
    }
  }

  // Peak RSS growth in units of n·d, as [above, below]. Lloyd on int8 holds the bytes (measured
  // 1.30·n·d; widened to float32 5.98·n·d). Hamerly on int8 holds the bytes and one float32 copy,
  // 5·n·d (measured 5.26–5.41·n·d); a second float32 copy (measured 9.24·n·d) or float64 points
  // would add ≥ 4·n·d.
  const cases: Array<[string, 'lloyd' | 'hamerly', string, number, number]> = [
    ['Lloyd: about n·d (float32 would be 4·n·d)', 'lloyd', 'uint8', 0.9, 2],
    [
      'Hamerly: the bytes and one float32 copy, 5·n·d (not widened twice, nor float64)',
      'hamerly',
      'float32',
      4.5,
      7.5,
    ],
  ]
  for (const [name, algorithm, held, above, below] of cases)
    it(`costs on kernel int8 for a 64 MiB partition, under ${name}`, async () => {
      const { grown, heldAs } = await rssGrowth(algorithm)
      expect(heldAs).toBe(held)
      expect(grown).toBeGreaterThan(above * n * d)
      expect(grown).toBeLessThan(below * n * d)
    }, 120_000)
})
