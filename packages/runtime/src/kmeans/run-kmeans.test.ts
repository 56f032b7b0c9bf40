import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IterationReport } from '@codebook/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { broadcastAlgorithms } from '../collectives/broadcast/index.ts'
import { blockBounds } from '../collectives/group.ts'
import { treeReductions } from '../collectives/reduce/reduce.ts'
import { createPartials, encodedBytes } from '../collectives/regroup/partials.ts'
import { aggregationModes } from '../collectives/regroup/regroup.ts'
import { spawnLocalWorker } from '../framework/spawn.ts'
import { WorkerPool } from '../framework/worker-pool.ts'
import { createRng } from '../random/rng.ts'
import {
  encodedBytes as centroidBytes,
  decodeCentroids,
  encodeCentroids,
} from './encoding/centroid-encoding.ts'
import { assignReference } from './kernels/reference-kernel.ts'
import { lloydReference } from './lloyd-reference.ts'
import { type KmeansRunOptions, runKmeans } from './run-kmeans.ts'

/** Seeded overlapping Gaussian blobs: `k` centres in [−3, 3]^d, unit noise (so Lloyd takes many iterations). */
function blobs(n: number, d: number, k: number, seed: number): Float32Array {
  const rng = createRng(seed)
  const centres = Array.from({ length: k * d }, () => rng.next() * 6 - 3)
  const out = new Float32Array(n * d)
  for (let i = 0; i < n; i++) {
    const c = rng.int(k)
    for (let t = 0; t < d; t++) out[i * d + t] = centres[c * d + t]! + rng.normal()
  }
  return out
}

function expectClose(actual: Float32Array, expected: Float32Array, rel: number): void {
  expect(actual.length).toBe(expected.length)
  let worst = 0
  for (let i = 0; i < actual.length; i++) {
    const err = Math.abs(actual[i]! - expected[i]!) / Math.max(1, Math.abs(expected[i]!))
    worst = Math.max(worst, err)
  }
  expect(worst).toBeLessThanOrEqual(rel)
}

const P = 3
const SLOTS = 4
const D = 6
const K = 9
const N = 1200
const points = blobs(N, D, K, 11)
// Given init (the first K vectors): a poor start, so runs take many iterations and split no clusters.
const init = points.slice(0, K * D)
let pool: WorkerPool

beforeAll(async () => {
  pool = await WorkerPool.start({
    workers: P,
    spawn: spawnLocalWorker,
    chunkBytes: 1024,
    racks: ['a', 'a', 'b'],
  })
})
afterAll(async () => {
  await pool?.close()
})

function options(over: Partial<KmeansRunOptions> = {}): KmeansRunOptions {
  return {
    data: { kind: 'inline', points, d: D },
    init,
    maxIterations: 60,
    tol: 0,
    slots: SLOTS,
    broadcast: 'chain',
    chainOrder: 'topology',
    aggregation: 'three-stage',
    seed: 3,
    now: () => performance.now(),
    ...over,
  }
}

describe('K-means on the runtime', () => {
  const reference = lloydReference(points, D, init, { maxIterations: 60, tol: 0, seed: 3 })

  it('equals the single-process reference Lloyd for every broadcast and aggregation mode', async () => {
    expect(reference.iterations).toBeLessThan(30)
    for (const broadcast of broadcastAlgorithms) {
      for (const aggregation of aggregationModes) {
        const reports: IterationReport[] = []
        const run = await runKmeans(
          pool,
          options({ broadcast, aggregation, onIteration: (r) => reports.push(r) }),
        )
        expect(run.iterations, `${broadcast}/${aggregation}`).toBe(reference.iterations)
        expectClose(run.centroids, reference.centroids, 1e-4)
        expect(Math.abs(run.inertia - reference.inertia.at(-1)!) / reference.inertia.at(-1)!).toBeLessThan(
          1e-6,
        )
        for (const r of reports) IterationReport.parse(r)
        expect(reports.map((r) => r.reassigned)).toEqual(reference.reassigned)
        // The broadcast moves k·d float32 to each of the p − 1 other workers, whatever the algorithm.
        for (const r of reports) {
          const received = r.workers.reduce((s, w) => s + w.stages.broadcast.bytesReceived, 0)
          expect(received).toBe((P - 1) * K * D * 4)
        }
      }
    }
  })

  it('equals the single-process reference Lloyd with every tree reduction of the reduce/combine stage', async () => {
    for (const reduction of treeReductions) {
      const reports: IterationReport[] = []
      const run = await runKmeans(pool, options({ reduction, onIteration: (r) => reports.push(r) }))
      expect(run.iterations, reduction).toBe(reference.iterations)
      expectClose(run.centroids, reference.centroids, 1e-4)
      expect(reports.map((r) => r.reassigned)).toEqual(reference.reassigned)
      for (const r of reports) {
        IterationReport.parse(r)
        expect(r.reduction).toBe(reduction)
        // Each worker merges its own tasks and the tree moves whole sums: p − 1 values of k sums
        // and counts (sparse or dense), none by key block.
        expect(r.stages.shuffle.bytes, reduction).toBe(0)
        expect(r.stages.reduce.bytes, reduction).toBeGreaterThan(0)
        expect(r.encoding.sparseMessages + r.encoding.denseMessages, reduction).toBeGreaterThanOrEqual(P - 1)
        expect(r.stages.reduce.ms).toBeGreaterThan(0)
      }
    }
  })

  it('a single worker (nothing to shuffle or combine) equals the reference for every aggregation mode', async () => {
    const single = await WorkerPool.start({ workers: 1, spawn: spawnLocalWorker })
    try {
      for (const aggregation of aggregationModes) {
        const reports: IterationReport[] = []
        const run = await runKmeans(single, options({ aggregation, onIteration: (r) => reports.push(r) }))
        expect(run.iterations, aggregation).toBe(reference.iterations)
        expectClose(run.centroids, reference.centroids, 1e-4)
        expect(reports.map((r) => r.reassigned)).toEqual(reference.reassigned)
        for (const r of reports) expect(r.workers[0]!.stages.shuffle.bytesSent).toBe(0)
      }
    } finally {
      await single.close()
    }
  })

  it('runs the map stage on the ONNX kernel in every worker with the reference result', async () => {
    // Float32 BLAS distances may rank exact near-ties differently; seeded blobs have none.
    const run = await runKmeans(pool, options({ kernel: 'onnx', threadsPerTask: 1 }))
    expect(run.iterations).toBe(reference.iterations)
    expectClose(run.centroids, reference.centroids, 1e-4)
  })

  it('hamerly and yinyang map tasks (reference and ONNX dense passes) equal the reference Lloyd and prune distances', async () => {
    const runs: [KmeansRunOptions['algorithm'], string][] = [
      ['hamerly', 'reference'],
      ['yinyang', 'reference'],
      ['hamerly', 'onnx'],
      ['yinyang', 'onnx'],
    ]
    for (const [algorithm, kernel] of runs) {
      const reports: IterationReport[] = []
      const run = await runKmeans(
        pool,
        options({ algorithm, kernel, threadsPerTask: 1, onIteration: (r) => reports.push(r) }),
      )
      const what = `${algorithm}/${kernel}`
      expect(run.algorithm, what).toBe(algorithm)
      expect(run.iterations, what).toBe(reference.iterations)
      expectClose(run.centroids, reference.centroids, 1e-4)
      expect(
        reports.map((r) => r.reassigned),
        what,
      ).toEqual(reference.reassigned)
      for (const [i, r] of reports.entries())
        expect(Math.abs(r.inertia - reference.inertia[i]!) / reference.inertia[i]!, what).toBeLessThan(1e-6)
      // Late iterations move few centroids far, so the bounds must skip most distances.
      expect(reports.at(-1)!.distanceFraction!, what).toBeLessThan(0.5)
      for (const r of reports) IterationReport.parse(r)
    }
  })

  it('Lloyd evaluates every distance: distanceFraction is exactly 1, nothing saved by float32', async () => {
    const reports: IterationReport[] = []
    await runKmeans(pool, options({ maxIterations: 2, onIteration: (r) => reports.push(r) }))
    for (const r of reports) {
      expect(r.distanceFraction).toBe(1)
      expect(r.broadcastBytesSaved).toBe(0)
    }
  })

  it('float16 / uint8 broadcasts: workers assign to the decoded centroids, fewer bytes, centroids near float32', async () => {
    const iterations = 6
    const exact = await runKmeans(pool, options({ maxIterations: iterations, encoding: 'float32' }))
    const plain = await runKmeans(pool, options({ maxIterations: iterations }))
    expect(exact.centroids).toEqual(plain.centroids)
    // The decoded centroids differ by ≤ 2⁻¹¹·|x| (float16) or half a step of (max − min) / 255
    // (uint8); the updated centroids then differ only through points whose label flips near a
    // boundary. Stated bound: every coordinate within 0.05 of float32's after 6 iterations (the
    // data spans about [−7, 7] with unit noise per cluster; measured: float16 0.015, uint8 0).
    const bound = 0.05
    for (const encoding of ['float16', 'uint8'] as const) {
      const reports: IterationReport[] = []
      const run = await runKmeans(
        pool,
        options({ maxIterations: iterations, encoding, onIteration: (r) => reports.push(r) }),
      )
      expect(run.iterations).toBe(iterations)
      // Independent check of iteration 1: brute-force inertia against the decoded initial centroids.
      const decoded = decodeCentroids(encodeCentroids(init, K, D, encoding), K, D, encoding)
      const sse = assignReference(points, decoded, D).distancesSq.reduce((s, v) => s + v, 0)
      expect(Math.abs(reports[0]!.inertia - sse) / sse).toBeLessThan(1e-6)
      const saved = (P - 1) * (K * D * 4 - centroidBytes(K, D, encoding))
      for (const r of reports) {
        expect(r.broadcastBytesSaved).toBe(saved)
        const received = r.workers.reduce((s, w) => s + w.stages.broadcast.bytesReceived, 0)
        expect(received).toBe((P - 1) * centroidBytes(K, D, encoding))
      }
      let worst = 0
      for (let i = 0; i < run.centroids.length; i++)
        worst = Math.max(worst, Math.abs(run.centroids[i]! - exact.centroids[i]!))
      expect(worst, encoding).toBeLessThanOrEqual(bound)
    }
  })

  it('--combine centroids: the root gets each block as centroids in the encoding, within half a uint8 step of Lloyd', async () => {
    // The workers assign to the decoded uint8 init, so the reference starts there too; after one
    // update the reducers send centroid blocks quantised per dimension over their block's range,
    // at most the global range: half a step of it bounds every coordinate (closed form).
    const decodedInit = decodeCentroids(encodeCentroids(init, K, D, 'uint8'), K, D, 'uint8')
    const ref = lloydReference(points, D, decodedInit, { maxIterations: 1, tol: 0, seed: 3 })
    const reports: IterationReport[] = []
    const run = await runKmeans(
      pool,
      options({
        maxIterations: 1,
        encoding: 'uint8',
        combine: 'centroids',
        onIteration: (r) => reports.push(r),
      }),
    )
    let worst = 0
    for (let t = 0; t < D; t++) {
      let lo = Number.POSITIVE_INFINITY
      let hi = Number.NEGATIVE_INFINITY
      for (let j = 0; j < K; j++) {
        lo = Math.min(lo, ref.centroids[j * D + t]!)
        hi = Math.max(hi, ref.centroids[j * D + t]!)
      }
      const halfStep = (hi - lo) / 255 / 2
      for (let j = 0; j < K; j++) {
        const err = Math.abs(run.centroids[j * D + t]! - ref.centroids[j * D + t]!)
        expect(err, `centroid ${j}, dimension ${t}`).toBeLessThanOrEqual(halfStep * (1 + 1e-5) + 1e-6)
        worst = Math.max(worst, err)
      }
    }
    // The quantisation happened (the exact sums would leave no error at all).
    expect(worst).toBeGreaterThan(1e-6)
    // The combine moved fewer bytes than the exact sums do.
    const sums: IterationReport[] = []
    await runKmeans(pool, options({ maxIterations: 1, encoding: 'uint8', onIteration: (r) => sums.push(r) }))
    const combineBytes = (r: IterationReport) => r.workers.reduce((s, w) => s + w.stages.combine.bytesSent, 0)
    expect(combineBytes(reports[0]!)).toBeLessThan(combineBytes(sums[0]!))
  })

  it('stops on the relative inertia change when tol > 0', async () => {
    const ref = lloydReference(points, D, init, { maxIterations: 60, tol: 1e-3, seed: 3 })
    const run = await runKmeans(pool, options({ tol: 1e-3 }))
    expect(run.iterations).toBe(ref.iterations)
    expectClose(run.centroids, ref.centroids, 1e-4)
  })

  it('continues from its checkpoint with previousInertia, stops on tol where the undisturbed run does, bit for bit', async () => {
    const whole = await runKmeans(pool, options({ tol: 1e-3 }))
    expect(whole.iterations).toBeGreaterThan(3)
    // Cut one iteration before the stop: the first resumed iteration must stop, which needs the previous inertia.
    const cut = whole.iterations - 1
    const dir = await mkdtemp(join(tmpdir(), 'codebook-resume-'))
    try {
      const first = await runKmeans(pool, options({ tol: 1e-3, maxIterations: cut, checkpointDir: dir }))
      expect(first.converged).toBe(false)
      // Only the restart point is left: the root dropped each checkpoint once the next was acknowledged.
      expect(await readdir(dir)).toEqual([`centroids-${cut}.npy`])
      const reports: IterationReport[] = []
      const rest = await runKmeans(
        pool,
        options({
          tol: 1e-3,
          init: undefined,
          checkpointDir: dir,
          from: cut,
          previousInertia: first.inertia,
          onIteration: (r) => reports.push(r),
        }),
      )
      expect(rest.iterations).toBe(whole.iterations)
      expect(rest.converged).toBe(true)
      expect(reports.map((r) => r.iteration)).toEqual([cut + 1])
      expect(Array.from(rest.centroids)).toEqual(Array.from(whole.centroids))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('three-stage (the paper’s) cuts shuffle bytes by the slots per node and gathers the k × d result, exactly as computed from the data', async () => {
    const stagesOf = async (aggregation: 'direct' | 'three-stage') => {
      const reports: IterationReport[] = []
      await runKmeans(pool, options({ aggregation, maxIterations: 1, onIteration: (r) => reports.push(r) }))
      return reports[0]!.stages
    }
    const direct = (await stagesOf('direct')).shuffle.bytes
    const threeStage = await stagesOf('three-stage')
    const local = threeStage.shuffle.bytes
    // Independent expectation: assign every vector by brute force, partition rows like the
    // driver (workers, then map tasks), and size every message the workers must send.
    const labels = assignReference(points, init, D).labels
    const rows = blockBounds(N, P)
    const blocks = blockBounds(K, P)
    const all = createPartials(K, D)
    // Sums too: the codec sizes blocks by their values (int32 when every value is an integer).
    const add = (q: ReturnType<typeof createPartials>, i: number) => {
      const c = labels[i]!
      q.counts[c] += 1
      for (let t = 0; t < D; t++) q.sums[c * D + t] += points[i * D + t]!
    }
    for (let i = 0; i < N; i++) add(all, i)
    let expectDirect = 0
    let expectLocal = 0
    for (let w = 0; w < P; w++) {
      const node = createPartials(K, D)
      const tasks = blockBounds(rows[w + 1]! - rows[w]!, SLOTS)
      for (let t = 0; t < SLOTS; t++) {
        const part = createPartials(K, D)
        for (let i = rows[w]! + tasks[t]!; i < rows[w]! + tasks[t + 1]!; i++) {
          add(part, i)
          add(node, i)
        }
        for (let j = 0; j < P; j++)
          if (j !== w) expectDirect += encodedBytes(part, blocks[j]!, blocks[j + 1]!)
      }
      for (let j = 0; j < P; j++) if (j !== w) expectLocal += encodedBytes(node, blocks[j]!, blocks[j + 1]!)
    }
    expect(direct).toBe(expectDirect)
    expect(local).toBe(expectLocal)
    expect(direct / local).toBeGreaterThan(SLOTS * 0.8)
    expect(direct / local).toBeLessThanOrEqual(SLOTS)
    // Stage 3, the gather at the root (worker 0): every other owner sends its reduced block of
    // the k centroids' sums and counts; then the ring all-gather of every rank's inertia and
    // reassignments (two float64s), p − 1 steps at each of the p ranks.
    let expectGather = 0
    for (let j = 1; j < P; j++) expectGather += encodedBytes(all, blocks[j]!, blocks[j + 1]!)
    expect(threeStage.combine.bytes).toBe(expectGather + P * (P - 1) * 16)
  })
})

describe('empty clusters and sparse intermediate data', () => {
  it('splits an empty cluster like the reference and sends sparse blocks when they are smaller', async () => {
    // Centroid 1 duplicates centroid 0, so ties leave cluster 1 empty in the first iteration.
    const dup = init.slice()
    dup.set(init.subarray(0, D), D)
    const k = 40
    const wide = points.slice(0, k * D)
    wide.set(dup, 0)
    const reference = lloydReference(points, D, wide, { maxIterations: 8, tol: 0, seed: 3 })
    const reports: IterationReport[] = []
    const run = await runKmeans(
      pool,
      options({ init: wide, maxIterations: 8, aggregation: 'direct', onIteration: (r) => reports.push(r) }),
    )
    expect(reports[0]!.emptyClustersSplit).toBeGreaterThanOrEqual(1)
    expect(reports.some((r) => r.encoding.sparseMessages > 0)).toBe(true)
    expectClose(run.centroids, reference.centroids, 1e-4)
  })
})

describe('SPMD iterations', () => {
  it('at k = 20,000 the driver sends and receives no k × d array per iteration: its control sockets carry the reports only', async () => {
    const k = 20_000
    const d = 8
    const wide = blobs(2 * k, d, 500, 5)
    const perIteration: number[] = []
    const reportBytes: number[] = []
    let last = 0
    const run = await runKmeans(
      pool,
      options({
        data: { kind: 'inline', points: wide, d },
        init: wide.slice(0, k * d),
        maxIterations: 3,
        slots: 1,
        kernel: 'onnx',
        threadsPerTask: 1,
        onIteration: (r) => {
          const { sent, received } = pool.controlBytes()
          if (r.iteration > 1) perIteration.push(sent + received - last)
          last = sent + received
          reportBytes.push(JSON.stringify(r).length)
        },
      }),
    )
    expect(run.iterations).toBe(3)
    // One centroid array is k × d × 4 = 640,000 bytes; an iteration moves at most 64 KB besides the reports.
    expect(perIteration).toHaveLength(2)
    for (const [i, bytes] of perIteration.entries())
      expect(bytes).toBeLessThanOrEqual(64 * 1024 + reportBytes[i + 1]!)
    expect(run.centroids).toHaveLength(k * d)
  })
})

describe('fault tolerance', () => {
  it('a worker killed mid-run (SIGKILL) is replaced and the run ends with the undisturbed centroids bit for bit (regroup and tree-dyn)', async () => {
    // tree-dyn: the coordinator on worker 0 waits for the dead worker's announcements until the
    // driver aborts the iteration's ops.
    for (const reduction of ['regroup', 'tree-dyn'] as const) {
      const undisturbed = await runKmeans(pool, options({ maxIterations: 6, reduction }))
      const victim = pool.child(1)!
      const reports: IterationReport[] = []
      const run = await runKmeans(
        pool,
        options({
          maxIterations: 6,
          reduction,
          onIteration: (r) => {
            reports.push(r)
            // Killed while the driver is already sending the next iteration.
            if (r.iteration === 2) victim.kill('SIGKILL')
          },
        }),
      )
      expect(victim.signalCode).toBe('SIGKILL')
      expect(pool.child(1)).not.toBe(victim)
      expect(
        reports.reduce((s, r) => s + r.restarts, 0),
        reduction,
      ).toBeGreaterThanOrEqual(1)
      expect(run.iterations).toBe(undisturbed.iterations)
      expect(Array.from(run.centroids), reduction).toEqual(Array.from(undisturbed.centroids))
    }
  })

  it('a worker that refuses data-plane connections is routed around, replaced, and the iteration re-run', async () => {
    const undisturbed = await runKmeans(
      pool,
      options({ maxIterations: 3, broadcast: 'chain', chainOrder: 'rank' }),
    )
    const refusing = pool.child(2)!
    await pool.request(2, { type: 'close-listener' })
    const reports: IterationReport[] = []
    const run = await runKmeans(
      pool,
      options({
        maxIterations: 3,
        broadcast: 'chain',
        chainOrder: 'rank',
        onIteration: (r) => reports.push(r),
      }),
    )
    expect(reports[0]!.restarts).toBe(1)
    expect(pool.child(2)).not.toBe(refusing)
    expect(Array.from(run.centroids)).toEqual(Array.from(undisturbed.centroids))
  })
})

describe('exact integer partial sums', () => {
  it('integer data (uint8-like) travels as int32 sums: bitwise the float64 reference, fewer bytes, in every mode', async () => {
    // Integer points in [0, 255], as quantised HOG: every cluster sum is an integer.
    const ints = Float32Array.from(points, (v) => Math.max(0, Math.min(255, Math.round(v * 20 + 128))))
    const start = ints.slice(0, K * D)
    const reference = lloydReference(ints, D, start, { maxIterations: 6, tol: 0, seed: 3 })
    for (const aggregation of aggregationModes) {
      const reports: IterationReport[] = []
      const run = await runKmeans(
        pool,
        options({
          data: { kind: 'inline', points: ints, d: D },
          init: start,
          maxIterations: 6,
          aggregation,
          onIteration: (r) => reports.push(r),
        }),
      )
      expect(Array.from(run.centroids), aggregation).toEqual(Array.from(reference.centroids))
      // allreduce sums one packed float64 vector (no codec); every other mode sends int32 blocks.
      if (aggregation === 'allreduce')
        expect(reports.every((r) => (r.partialBytesSaved ?? 0) === 0)).toBe(true)
      else
        expect(
          reports.every((r) => (r.partialBytesSaved ?? 0) > 0),
          aggregation,
        ).toBe(true)
    }
    // Real-valued data saves nothing: its sums are not integers.
    const reports: IterationReport[] = []
    await runKmeans(pool, options({ maxIterations: 2, onIteration: (r) => reports.push(r) }))
    expect(reports.map((r) => r.partialBytesSaved)).toEqual([0, 0])
  })
})

describe('float32 partial sums (docs/runtime.md, "Float32 partial sums")', () => {
  const U = 2 ** -24
  // Encodes along any path to the root: direct / three-stage 2 (shuffle, gather), ring p (p − 1
  // hops, gather), a tree ≤ p − 1 levels + the move to the root.
  const R = Math.max(2, P)

  it('after one iteration every centroid coordinate is within the proven bound of the exact run, on data built to cancel', async () => {
    // Adversarial: each coordinate ±(1e4 … 1.01e4) with a random sign, so a cluster's sum cancels
    // (Σ|x|/n ≫ |c|) and no sum is a float32 value: the bound's worst case, not the easy one.
    const rng = createRng(5)
    const adv = new Float32Array(N * D)
    for (let i = 0; i < adv.length; i++) adv[i] = (rng.next() < 0.5 ? -1 : 1) * (1e4 + rng.next() * 100)
    const start = adv.slice(0, K * D)
    // The first iteration's labels come from `start` in both modes: the bound's Σ|x| and counts.
    const labels = assignReference(adv, start, D).labels
    const abs = new Float64Array(K * D)
    const count = new Float64Array(K)
    for (let i = 0; i < N; i++) {
      count[labels[i]!]! += 1
      for (let t = 0; t < D; t++) abs[labels[i]! * D + t]! += Math.abs(adv[i * D + t]!)
    }
    const growth = (1 + U) ** R - 1
    const cases = [
      ...aggregationModes.map((aggregation) => ({ aggregation })),
      ...treeReductions.map((reduction) => ({ reduction })),
    ]
    for (const mode of cases) {
      const name = JSON.stringify(mode)
      const common = {
        data: { kind: 'inline' as const, points: adv, d: D },
        init: start,
        maxIterations: 1,
        ...mode,
      }
      const exact = await runKmeans(pool, options({ ...common, partials: 'exact' }))
      const saved: number[] = []
      const f32 = await runKmeans(
        pool,
        options({ ...common, partials: 'float32', onIteration: (r) => saved.push(r.partialBytesSaved ?? 0) }),
      )
      let worst = 0
      let moved = 0
      for (let j = 0; j < K; j++) {
        if (count[j] === 0) continue
        for (let t = 0; t < D; t++) {
          const a = exact.centroids[j * D + t]!
          const b = f32.centroids[j * D + t]!
          // Sum error ≤ ((1+u)^R − 1)·Σ|x|; ÷ n; plus each centroid's own rounding to float32.
          const bound = growth * (abs[j * D + t]! / count[j]!) * (1 + 1e-9) + U * (Math.abs(a) + Math.abs(b))
          worst = Math.max(worst, Math.abs(a - b) / bound)
          if (a !== b) moved++
        }
      }
      expect(worst, name).toBeLessThanOrEqual(1)
      // allreduce sums one packed float64 vector (no codec): nothing rounded, nothing saved.
      if ('aggregation' in mode && mode.aggregation === 'allreduce') {
        expect(moved, name).toBe(0)
        expect(saved, name).toEqual([0])
      } else {
        expect(moved, name).toBeGreaterThan(0)
        expect(saved[0], name).toBeGreaterThan(0)
      }
    }
  })

  it('a whole run ends within 1e-6 relative of the exact run’s inertia, and exact mode is the default bitwise', async () => {
    for (const aggregation of ['three-stage', 'ring'] as const) {
      const exact = await runKmeans(pool, options({ aggregation, partials: 'exact' }))
      const byDefault = await runKmeans(pool, options({ aggregation }))
      expect(Array.from(byDefault.centroids)).toEqual(Array.from(exact.centroids))
      const f32 = await runKmeans(pool, options({ aggregation, partials: 'float32' }))
      expect(Math.abs(f32.inertia - exact.inertia) / exact.inertia, aggregation).toBeLessThan(1e-6)
    }
  })
})
