import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IterationReport } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnLocalWorker } from '../../framework/spawn.ts'
import { WorkerPool } from '../../framework/worker-pool.ts'
import { generateBlobs } from '../bench-data.ts'
import { readCheckpoint } from '../checkpoint.ts'
import { createReferenceKernel, rowDistanceSq } from '../kernels/reference-kernel.ts'
import { assignmentAlgorithm, type KmeansRunOptions, runKmeans } from '../run-kmeans.ts'
import {
  buildCentroidIndex,
  createApproximateState,
  type RecallCount,
  recallUpperBound,
  walkMayContinue,
} from './approximate.ts'

/** Brute force in the test: is centroid `c` an exact nearest of row i (ties count)? */
function isNearest(
  points: Float32Array,
  i: number,
  centroids: Float32Array,
  k: number,
  d: number,
  c: number,
) {
  const mine = rowDistanceSq(points, i, centroids, c, d)
  for (let j = 0; j < k; j++) if (rowDistanceSq(points, i, centroids, j, d) < mine) return false
  return true
}

/** Brute force in the test: the inertia of the exact nearest assignment to `centroids`, in float64. */
function exactInertia(points: Float32Array, n: number, centroids: Float32Array, k: number, d: number) {
  let sum = 0
  for (let i = 0; i < n; i++) {
    let best = Number.POSITIVE_INFINITY
    for (let c = 0; c < k; c++) best = Math.min(best, rowDistanceSq(points, i, centroids, c, d))
    sum += best
  }
  return sum
}

/** Options of a small run on blobs: the first k points as init, `iterations`, 2 map tasks per worker. */
function blobsRun(
  o: { n: number; d: number; k: number; blobs: number; seed: number; spread: number },
  iterations: number,
  recallSample: number,
) {
  const { points } = generateBlobs({ n: o.n, d: o.d, blobs: o.blobs, seed: o.seed, spread: o.spread })
  return {
    data: { kind: 'inline' as const, points, d: o.d },
    init: points.slice(0, o.k * o.d),
    maxIterations: iterations,
    tol: 0,
    slots: 2,
    broadcast: 'chain' as const,
    chainOrder: 'topology' as const,
    aggregation: 'three-stage' as const,
    seed: 1,
    recallSample,
    now: () => performance.now(),
  }
}

/** A recall sample of `matched` hits out of `sampled` (the distance sums do not matter here). */
function sample(matched: number, sampled: number): RecallCount {
  return { matched, sampled, approximateSq: 0, exactSq: 0 }
}

describe('when a walking worker rebuilds', () => {
  it('bounds recall from above by the Wilson score interval (95 %)', () => {
    // Closed forms: 0 of n gives z²/(n + z²); 50 of 100 gives 0.5962 (the textbook interval 0.4038–0.5962).
    expect(recallUpperBound(sample(0, 10))).toBeCloseTo(1.96 ** 2 / (10 + 1.96 ** 2), 12)
    expect(recallUpperBound(sample(50, 100))).toBeCloseTo(0.5962, 4)
    expect(recallUpperBound(sample(10, 10))).toBe(1)
    expect(recallUpperBound(sample(0, 0))).toBe(1)
  })

  it('starts on the sampled recall, then rebuilds only when the sample rules the floor out', () => {
    // After an index search: the bare fraction must reach the floor (0.977 does not reach 0.98).
    expect(walkMayContinue(sample(250, 256), false, 0.98)).toBe(false)
    expect(walkMayContinue(sample(253, 256), false, 0.98)).toBe(true)
    // While walking: 250 of 256 (0.977) is noise around 0.98 and keeps walking; 240 of 256 (0.94) is not.
    expect(walkMayContinue(sample(250, 256), true, 0.98)).toBe(true)
    expect(walkMayContinue(sample(240, 256), true, 0.98)).toBe(false)
    // The same fraction from a large sample is evidence: 19,540 of 20,000 (0.977) rebuilds.
    expect(walkMayContinue(sample(19_540, 20_000), true, 0.98)).toBe(false)
    // A floor of 1 rebuilds after any miss; without a sample nothing says the walk fails.
    expect(walkMayContinue(sample(255, 256), true, 1)).toBe(false)
    expect(walkMayContinue(undefined, true, 0.98)).toBe(true)
  })
})

describe('approximate assignment (HNSW over the centroids)', () => {
  it('reports as recall exactly the fraction of its sample a brute force finds at an exact nearest centroid', async () => {
    const d = 16
    const k = 3000
    // Centroids and points from the same broad distribution: many near neighbours, so a thin
    // graph (connectivity 2, expansion 1) misses some and the recall is measurably below 1.
    const { points: centroids } = generateBlobs({ n: k, d, blobs: 0, seed: 1 })
    const { points } = generateBlobs({ n: 2000, d, blobs: 0, seed: 2 })
    const n = points.length / d
    for (const tuning of [
      { connectivity: 2, expansionAdd: 2, expansionSearch: 1 },
      { connectivity: 32, expansionAdd: 256, expansionSearch: 256 },
    ]) {
      const state = createApproximateState(points, n, d, createReferenceKernel(), {
        recallSample: 400,
        threads: 1,
        ...tuning,
      })
      const r = await state.assign(centroids, k)
      expect(state.sample).toHaveLength(400)
      let matched = 0
      let approximateSq = 0
      let exactSq = 0
      for (const i of state.sample) {
        if (isNearest(points, i, centroids, k, d, r.labels[i]!)) matched++
        approximateSq += rowDistanceSq(points, i, centroids, r.labels[i]!, d)
        let best = Number.POSITIVE_INFINITY
        for (let j = 0; j < k; j++) best = Math.min(best, rowDistanceSq(points, i, centroids, j, d))
        exactSq += best
      }
      expect(r.recall.sampled).toBe(400)
      expect(r.recall.matched).toBe(matched)
      // The sample's inertia under the approximate labels and under brute force's (the gap the report derives).
      expect(r.recall.approximateSq).toBeCloseTo(approximateSq, 6)
      expect(r.recall.exactSq).toBeCloseTo(exactSq, 6)
      if (matched < 400) expect(approximateSq).toBeGreaterThan(exactSq)
      expect(r.distancesEvaluated).toBe(400 * k)
      // Every label is a real centroid.
      expect(r.labels.every((c) => c >= 0 && c < k)).toBe(true)
      if (tuning.connectivity === 2) expect(matched).toBeLessThan(400)
      else expect(matched / 400).toBeGreaterThan(0.95)
    }
  })

  it('a worker-shared index gives each task the labels its own index would, and the parts are timed', async () => {
    const d = 8
    const k = 500
    const { points: centroids } = generateBlobs({ n: k, d, blobs: 0, seed: 3 })
    const { points } = generateBlobs({ n: 1200, d, blobs: 0, seed: 4 })
    // Two "map tasks" over halves of the points, one index built once for both.
    const halves = [points.subarray(0, 600 * d), points.subarray(600 * d)]
    const tuning = { connectivity: 16, expansionSearch: 64, threads: 1 }
    const index = buildCentroidIndex(centroids, k, d, tuning)
    expect(index.k).toBe(k)
    expect(index.buildMs).toBeGreaterThan(0)
    for (const half of halves) {
      const state = createApproximateState(half, 600, d, createReferenceKernel(), {
        recallSample: 600,
        ...tuning,
      })
      const shared = await state.assign(centroids, k, index)
      // The index's answers are the labels, whoever built it: the same as a direct query.
      expect(Array.from(shared.labels)).toEqual(Array.from(index.nearest(half, 600)))
      let matched = 0
      for (let i = 0; i < 600; i++) if (isNearest(half, i, centroids, k, d, shared.labels[i]!)) matched++
      expect(shared.recall.sampled).toBe(600)
      expect(shared.recall.matched).toBe(matched)
      expect(matched / 600).toBeGreaterThan(0.95)
      expect(shared.searchMs).toBeGreaterThan(0)
      expect(shared.recallMs).toBeGreaterThan(0)
    }
  })

  it('keeps a point’s previous centroid when it is nearer than the index’s answer', async () => {
    const d = 16
    const k = 3000
    const { points: centroids } = generateBlobs({ n: k, d, blobs: 0, seed: 1 })
    const { points } = generateBlobs({ n: 2000, d, blobs: 0, seed: 2 })
    const n = points.length / d
    // Two thin indexes over the same centroids miss different points.
    const thin = (connectivity: number) =>
      buildCentroidIndex(centroids, k, d, { connectivity, expansionAdd: 2, expansionSearch: 1, threads: 1 })
    const first = thin(2)
    const second = thin(3)
    const a = first.nearest(points, n)
    const b = second.nearest(points, n)
    const state = createApproximateState(points, n, d, createReferenceKernel(), {
      recallSample: 0,
      threads: 1,
    })
    await state.assign(centroids, k, first)
    const r = await state.assign(centroids, k, second)
    let kept = 0
    for (let i = 0; i < n; i++) {
      const da = rowDistanceSq(points, i, centroids, a[i]!, d)
      const db = rowDistanceSq(points, i, centroids, b[i]!, d)
      expect(r.labels[i]).toBe(da < db ? a[i] : b[i])
      if (da < db) kept++
    }
    expect(kept).toBeGreaterThan(0)
    // Off: the index's answer as it is.
    const plain = createApproximateState(points, n, d, createReferenceKernel(), {
      recallSample: 0,
      threads: 1,
      keepPrevious: false,
    })
    await plain.assign(centroids, k, first)
    expect(Array.from((await plain.assign(centroids, k, second)).labels)).toEqual(Array.from(b))
  })

  it('refuses to mix with bounds, and `auto` means no bounds', () => {
    expect(() => assignmentAlgorithm('approximate', 'hamerly', 1000)).toThrow(
      /KMEANS_ASSIGNMENT_CONFLICT|no bounds/,
    )
    expect(assignmentAlgorithm('approximate', 'auto', 100_000)).toBe('lloyd')
    expect(assignmentAlgorithm('exact', 'auto', 100_000)).toBe('hamerly')
  })

  describe('on worker processes', () => {
    let pool: WorkerPool
    let dir: string
    beforeAll(async () => {
      pool = await WorkerPool.start({ workers: 2, spawn: spawnLocalWorker })
      dir = await mkdtemp(join(tmpdir(), 'codebook-approximate-'))
    })
    afterAll(async () => {
      await pool?.close()
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    /**
     * Runs `options` keeping each iteration's report beside the brute-force inertia of the exact
     * assignment to the centroids that iteration assigned to (the init, then the previous
     * iteration's checkpoint, read while the root waits for the report). Comparing the two
     * at the same centroids, rather than two runs' endpoints, does not depend on where an early
     * miss sends the trajectory (another local optimum: +8 % once over 40 blobs).
     */
    async function withExactGaps(name: string, options: KmeansRunOptions, d: number) {
      const checkpointDir = join(dir, name)
      const points = (options.data as { points: Float32Array }).points
      const n = points.length / d
      let assigned = options.init!
      const k = assigned.length / d
      const exact: number[] = []
      const run = await runKmeans(pool, {
        ...options,
        checkpointDir,
        async onIteration(r) {
          exact.push(exactInertia(points, n, assigned, k, d))
          assigned = await readCheckpoint(checkpointDir, r.iteration, k, d)
        },
      })
      return { run, exact }
    }

    it('runs K-means with recall in every report, each iteration within 1 % of the exact assignment’s inertia', async () => {
      const common = blobsRun({ n: 4000, d: 8, k: 40, blobs: 40, seed: 7, spread: 50 }, 4, 1000)
      const { run: approximate, exact: exactAtSameCentroids } = await withExactGaps(
        'recall',
        { ...common, assignment: 'approximate' },
        8,
      )
      const exact = await runKmeans(pool, { ...common, assignment: 'exact' })
      expect(approximate.assignment).toBe('approximate')
      for (const report of approximate.reports) {
        IterationReport.parse(report)
        expect(report.assignment).toBe('approximate')
      }
      expect(exact.reports.every((r) => r.assignment === 'exact' && r.assignmentRecall === undefined)).toBe(
        true,
      )
      // HNSW is a greedy graph search: even over 40 centroids it may miss a few (0.993 seen in CI),
      // so the recall is high, not certain; the unit test above checks the figure itself.
      for (const [i, r] of approximate.reports.entries()) {
        expect(r.assignmentRecall).toBeGreaterThan(0.95)
        // Every miss costs inertia, a hit none: the gap is 0 exactly when the recall is 1.
        expect(r.assignmentInertiaGap! > 0).toBe(r.assignmentRecall! < 1)
        // The whole iteration's inertia against brute force at the same centroids: never below it
        // (float32 rounding aside), and a recall above 0.95 costs under 1 %.
        expect(r.inertia, `iteration ${r.iteration}`).toBeGreaterThanOrEqual(
          exactAtSameCentroids[i]! * (1 - 1e-6),
        )
        expect(r.inertia, `iteration ${r.iteration}`).toBeLessThanOrEqual(exactAtSameCentroids[i]! * 1.01)
      }
      // One index per worker per iteration: every worker reports its build, search and recall times.
      for (const r of approximate.reports)
        for (const w of r.workers) expect(w.approximateMs?.build ?? -1, `rank ${w.rank}`).toBeGreaterThan(0)
    }, 60_000)

    it('an i8 index on worker processes: int8 rows under the map, each iteration within 1 % of exact', async () => {
      const common = blobsRun({ n: 4000, d: 16, k: 40, blobs: 40, seed: 5, spread: 50 }, 3, 1000)
      const { run, exact } = await withExactGaps(
        'i8',
        { ...common, assignment: 'approximate', hnsw: { scalar: 'i8', expansionSearch: 64 } },
        16,
      )
      for (const [i, r] of run.reports.entries()) {
        expect(r.assignmentRecall, `iteration ${r.iteration}`).toBeGreaterThan(0.95)
        expect(r.inertia).toBeGreaterThanOrEqual(exact[i]! * (1 - 1e-6))
        expect(r.inertia).toBeLessThanOrEqual(exact[i]! * 1.01)
      }
    }, 60_000)

    it('walks the centroid graph after the first index, rebuilds when recall drops, and says which it did', async () => {
      const common = {
        ...blobsRun({ n: 6000, d: 8, k: 60, blobs: 30, seed: 11, spread: 30 }, 6, 3000),
        assignment: 'approximate' as const,
      }
      const { run: walked, exact: exactAtSameCentroids } = await withExactGaps(
        'walk',
        { ...common, hnsw: { search: 'walk', walkMinRecall: 0 } },
        8,
      )
      const searches = walked.reports.map((r) => r.workers.map((w) => w.approximateSearch))
      // Iteration 1 has no previous labels: an index; with no recall floor every later one walks.
      expect(searches[0]).toEqual(['index', 'index'])
      for (const s of searches.slice(1)) expect(s).toEqual(['walk', 'walk'])
      for (const r of walked.reports.slice(1))
        for (const w of r.workers) {
          expect(w.approximateMs!.build).toBe(0)
          // A walk evaluates at least one distance per point besides the recall sample's.
          expect(w.distancesEvaluated!).toBeGreaterThan(w.points)
        }
      for (const w of walked.reports[0]!.workers) expect(w.approximateMs!.graph!).toBeGreaterThan(0)
      for (const r of walked.reports) expect(r.assignmentInertiaGap! > 0).toBe(r.assignmentRecall! < 1)
      expect(walked.reports.at(-1)!.assignmentRecall!).toBeGreaterThan(0.9)
      // Against brute force at the same centroids: never below it, and the last walk within 2 %.
      for (const [i, r] of walked.reports.entries())
        expect(r.inertia, `iteration ${r.iteration}`).toBeGreaterThanOrEqual(
          exactAtSameCentroids[i]! * (1 - 1e-6),
        )
      expect(walked.inertia).toBeLessThanOrEqual(exactAtSameCentroids.at(-1)! * 1.02)
      // With the floor at 1 a worker walks only after a perfect sample of its own: after an
      // iteration whose (all workers') recall was 1 every worker walks, after a miss some worker rebuilds.
      const strict = await runKmeans(pool, { ...common, hnsw: { search: 'walk', walkMinRecall: 1 } })
      for (const [i, r] of strict.reports.entries()) {
        if (i === 0) continue
        const kinds = r.workers.map((w) => w.approximateSearch)
        if (strict.reports[i - 1]!.assignmentRecall === 1) expect(kinds).toEqual(['walk', 'walk'])
        else expect(kinds).toContain('index')
      }
    }, 60_000)
  })
})
