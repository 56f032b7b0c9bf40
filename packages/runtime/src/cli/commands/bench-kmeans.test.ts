import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { benchData } from '../../kmeans/bench-data.ts'
import { lloydReference } from '../../kmeans/lloyd-reference.ts'
import type { CommandIo } from '../progress.ts'
import { DEFAULT_FAISS_PYTHON } from './bench-faiss.ts'
import { type BenchKmeansOptions, runBenchKmeans } from './bench-kmeans.ts'

function collect(): CommandIo & { out: string[] } {
  const out: string[] = []
  return { out, stdout: { write: (s: string) => out.push(s) }, stderr: process.stderr }
}

describe('codebook bench kmeans', () => {
  it('prints the JSON summary of a run on seeded data, with the reference Lloyd inertia', async () => {
    const [n, d, k, blobs, seed] = [600, 8, 7, 4, 3]
    const io = collect()
    await runBenchKmeans(
      {
        n,
        d,
        k,
        iterations: 4,
        algorithm: 'hamerly',
        workers: 2,
        slots: 1,
        kernel: 'reference',
        tol: 0,
        blobs,
        seed,
        json: true,
      },
      io,
    )
    const printed = JSON.parse(io.out.join(''))
    expect(Object.keys(printed).sort()).toEqual(
      [
        'algorithm',
        'distanceFraction',
        'driverPeakRssMB',
        'heldAs',
        'kernel',
        'inertia',
        'iterations',
        'msPerIteration',
        'peakRssMB',
        'perIteration',
        'totalMs',
        'workerPeakRssMB',
      ].sort(),
    )
    expect([printed.kernel, printed.algorithm, printed.heldAs]).toEqual(['reference', 'hamerly', 'float32'])
    // One entry per iteration; its wall times add up to the total and hold every stage.
    expect(printed.perIteration).toHaveLength(printed.iterations)
    const sum = printed.perIteration.reduce((s: number, p: { ms: number }) => s + p.ms, 0)
    expect(Math.abs(sum - printed.totalMs)).toBeLessThan(0.1 * printed.iterations)
    for (const p of printed.perIteration) {
      expect(Object.keys(p.stageMs).sort()).toEqual(['broadcast', 'combine', 'map', 'reduce', 'shuffle'])
      expect(p.stageMs.map).toBeLessThanOrEqual(p.ms)
    }
    expect(printed.perIteration[0].distanceFraction).toBe(1)
    // Independent: the same seeded data and init through the single-process reference.
    const { points, init } = benchData(n, d, k, blobs, seed)
    const reference = lloydReference(points, d, init, { maxIterations: 4, tol: 0, seed })
    expect(printed.iterations).toBe(reference.iterations)
    expect(Math.abs(printed.inertia - reference.inertia.at(-1)!) / reference.inertia.at(-1)!).toBeLessThan(
      1e-6,
    )
    // Hamerly's first iteration is a full scan (fraction 1); later ones prune on blob data.
    expect(printed.distanceFraction).toBeGreaterThan(0)
    expect(printed.distanceFraction).toBeLessThan(1)
    expect(printed.msPerIteration).toBeGreaterThan(0)
    expect(printed.totalMs).toBeGreaterThanOrEqual(printed.msPerIteration)
    // At least this process's own resident set (vitest alone is tens of MiB), and not absurd.
    expect(printed.peakRssMB).toBeGreaterThan(process.memoryUsage().heapUsed / 2 ** 20 / 2)
    expect(printed.peakRssMB).toBeLessThan(64 * 1024)
    // The peak is the larger of the driver's own and the largest worker's (each its own process).
    expect(printed.workerPeakRssMB).toBeGreaterThan(0)
    expect(printed.peakRssMB).toBe(Math.max(printed.driverPeakRssMB, printed.workerPeakRssMB))
  })

  it('approximate with HNSW flags and float32 partials: per-iteration build/search/recall parts, bytes saved', async () => {
    const [n, d, k, blobs, seed] = [1200, 8, 30, 30, 5]
    const io = collect()
    const common = { n, d, k, iterations: 3, algorithm: 'auto' as const, workers: 2, slots: 2 }
    const run = (over: object) =>
      runBenchKmeans({ ...common, kernel: 'reference', tol: 0, blobs, seed, json: true, ...over }, collect())
    const approximate = await runBenchKmeans(
      {
        ...common,
        kernel: 'reference',
        tol: 0,
        blobs,
        seed,
        json: true,
        assignment: 'approximate',
        hnswConnectivity: 8,
        hnswExpansion: 16,
        hnswScalar: 'f16',
        partials: 'float32',
      },
      io,
    )
    expect(JSON.parse(io.out.join(''))).toEqual(JSON.parse(JSON.stringify(approximate)))
    expect(approximate.perIteration).toHaveLength(3)
    for (const p of approximate.perIteration) {
      expect(p.approximate?.buildMs).toBeGreaterThan(0)
      expect(p.approximate?.searchMs).toBeGreaterThan(0)
      expect(p.approximate?.recall).toBeGreaterThan(0.5)
      // A miss costs inertia, a hit none: the sample's gap is 0 exactly when its recall is 1.
      expect(p.approximate!.inertiaGap > 0).toBe(p.approximate!.recall < 1)
      // Build and search are parts of the map stage.
      expect(p.approximate!.buildMs + p.approximate!.searchMs).toBeLessThanOrEqual(p.stageMs.map)
    }
    // Real-valued sums travel as float32: bytes saved every iteration (2 workers exchange blocks).
    expect(approximate.partialBytesSaved).toBeGreaterThan(0)
    // Independent: the exact run on the same data ends at an inertia the approximate one nearly matches.
    const exact = await run({})
    expect(exact.perIteration.every((p) => p.approximate === undefined)).toBe(true)
    expect(exact.partialBytesSaved).toBeUndefined()
    expect(approximate.inertia).toBeLessThanOrEqual(exact.inertia * 1.05)
  })
})

/** Whether Debian's python3-faiss is importable here (CI machines may not have it). */
function faissInstalled(): boolean {
  try {
    execFileSync(DEFAULT_FAISS_PYTHON, ['-c', 'import faiss'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe('codebook bench kmeans --dtype uint8', () => {
  it('generates HOG-like bytes, which kernel int8 scans as bytes (onnx forces float32), each iteration timed', async () => {
    const base = { n: 800, d: 16, k: 6, iterations: 3, algorithm: 'lloyd' as const, workers: 2, slots: 1 }
    const rest = { dtype: 'uint8' as const, tol: 0, blobs: 5, seed: 2, json: true }
    const printed: Array<{
      kernel: string
      heldAs: string
      inertia: number
      perIteration: Array<{ ms: number }>
    }> = []
    for (const kernel of ['int8', 'onnx']) {
      const io = collect()
      await runBenchKmeans({ ...base, ...rest, kernel }, io)
      printed.push(JSON.parse(io.out.join('')))
    }
    const [bytes, widened] = printed
    expect([bytes!.kernel, bytes!.heldAs]).toEqual(['int8', 'uint8'])
    expect([widened!.kernel, widened!.heldAs]).toEqual(['onnx', 'float32'])
    expect(bytes!.perIteration).toHaveLength(3)
    for (const p of bytes!.perIteration) expect(p.ms).toBeGreaterThan(0)
    // Same data and init; float32 ORT distances may only differ at near ties (relative 1e-6).
    expect(Math.abs(bytes!.inertia - widened!.inertia) / widened!.inertia).toBeLessThan(1e-6)
  }, 120_000)
})

describe('codebook bench kmeans --faiss', () => {
  const small: BenchKmeansOptions = {
    n: 3000,
    d: 8,
    k: 12,
    iterations: 6,
    algorithm: 'lloyd',
    workers: 1,
    slots: 1,
    kernel: 'reference',
    tol: 0,
    blobs: 6,
    seed: 5,
    json: true,
    faiss: true,
  }

  it.skipIf(!faissInstalled())(
    'runs FAISS on the same data and init: its last objective equals Codebook Lloyd inertia',
    async () => {
      const io = collect()
      const printed = await runBenchKmeans(small, io)
      const faiss = printed.faiss
      if (!faiss?.available) throw new Error(`FAISS did not run: ${JSON.stringify(faiss)}`)
      expect(faiss.iterations).toBe(6)
      expect(faiss.totalMs).toBeGreaterThan(0)
      // Same Lloyd iterations from the same centroids: the same labels, so the same sum of squared
      // distances up to FAISS's float32 arithmetic.
      expect(Math.abs(faiss.inertia - printed.inertia) / printed.inertia).toBeLessThan(1e-4)
      // And the human form prints both.
      const human = collect()
      await runBenchKmeans({ ...small, json: false, faissIterations: 2 }, human)
      const text = human.out.join('')
      expect(text).toMatch(/^lloyd on reference: .* ms\/iteration/m)
      expect(text).toMatch(/^faiss \S+: .* ms for 2 iterations, .* codebook\/faiss per iteration \d/m)
    },
    120_000,
  )

  it('says why when FAISS is absent, and still prints its own figures', async () => {
    const missing = collect()
    const got = await runBenchKmeans({ ...small, faissPython: '/nonexistent/python3', json: false }, missing)
    expect(got.faiss).toEqual({ available: false, reason: '/nonexistent/python3 not found' })
    expect(missing.out.join('')).toMatch(/inertia .*\nfaiss: not run \(\/nonexistent\/python3 not found\)\n$/)
  }, 60_000)

  it.skipIf(!existsSync(DEFAULT_FAISS_PYTHON))(
    'reports an ImportError of faiss as "not run" (a Python without the module)',
    async () => {
      // A real Python whose `import faiss` fails: a module of that name that raises first on the path.
      const shim = await mkdtemp(join(tmpdir(), 'codebook-no-faiss-'))
      const before = process.env.PYTHONPATH
      try {
        await writeFile(join(shim, 'faiss.py'), 'raise ImportError("no faiss on this machine")\n')
        process.env.PYTHONPATH = shim
        const got = await runBenchKmeans({ ...small, iterations: 2 }, collect())
        expect(got.faiss).toEqual({
          available: false,
          reason: 'cannot import faiss: no faiss on this machine',
        })
        expect(got.iterations).toBe(2)
      } finally {
        if (before === undefined) delete process.env.PYTHONPATH
        else process.env.PYTHONPATH = before
        await rm(shim, { recursive: true, force: true })
      }
    },
    60_000,
  )

  it('refuses --faiss with --data but no --init before any work (FAISS must start from the same centroids)', async () => {
    await expect(
      runBenchKmeans({ ...small, data: '/nonexistent/points.npy' }, collect()),
    ).rejects.toMatchObject({
      code: 'BENCH_FAISS_NEEDS_INIT',
    })
  })
})

describe('codebook bench kmeans --algorithm auto at large k', () => {
  it('ends on the inertia of lloyd (to 1e-6) and skips the second full pass (k = 4,096, d = 32, ten centroids per blob)', async () => {
    const base: BenchKmeansOptions = {
      n: 16_000,
      d: 32,
      k: 4096,
      iterations: 5,
      algorithm: 'lloyd',
      workers: 1,
      slots: 1,
      kernel: 'onnx',
      tol: 0,
      blobs: 410,
      seed: 7,
      json: true,
    }
    const lloyd = await runBenchKmeans(base, collect())
    const auto = await runBenchKmeans({ ...base, algorithm: 'auto' }, collect())
    expect(auto.iterations).toBe(lloyd.iterations)
    expect(Math.abs(auto.inertia - lloyd.inertia) / lloyd.inertia).toBeLessThan(1e-6)
    expect(lloyd.perIteration.map((p) => p.distanceFraction)).toEqual(lloyd.perIteration.map(() => 1))
    // Hamerly's second iteration, where every point fails its one bound, goes through centroid
    // neighbourhoods on a real worker: a small share of the n·k distances, not a full pass (≥ 1).
    expect(auto.perIteration[0]!.distanceFraction).toBeGreaterThanOrEqual(1)
    expect(auto.perIteration[1]!.distanceFraction).toBeLessThan(0.2)
  }, 120_000)
})
