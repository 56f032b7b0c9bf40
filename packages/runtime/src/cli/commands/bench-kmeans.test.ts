import { describe, expect, it } from 'vitest'
import { benchData } from '../../kmeans/bench-data.ts'
import { lloydReference } from '../../kmeans/lloyd-reference.ts'
import type { CommandIo } from '../progress.ts'
import { runBenchKmeans } from './bench-kmeans.ts'

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
        'distanceFraction',
        'inertia',
        'iterations',
        'msPerIteration',
        'peakRssMB',
        'perIteration',
        'totalMs',
      ].sort(),
    )
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
