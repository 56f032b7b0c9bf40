import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { randomInit } from '../init/random-init.ts'
import { createOrtKernel, type OrtKernel } from '../kernels/ort-kernel.ts'
import { assignReference } from '../kernels/reference-kernel.ts'
import type { AccelAssignResult, AccelOptions, AccelState } from './accel-state.ts'
import { createHamerlyState } from './hamerly.ts'
import { accumulatePartialSums } from './partial-sums.ts'
import { generateBlobs } from './test-support/blobs.ts'
import { createYinyangState } from './yinyang.ts'

/** The plain Lloyd update (float64 means; an empty cluster keeps its centroid). */
function lloydUpdate(
  points: Float32Array,
  labels: Int32Array,
  previous: Float32Array,
  d: number,
  k: number,
): Float32Array {
  const { sums, counts } = accumulatePartialSums(points, labels, d, k)
  const next = previous.slice()
  for (let j = 0; j < k; j++) {
    if (counts[j] === 0) continue
    for (let t = 0; t < d; t++) next[j * d + t] = sums[j * d + t] / counts[j]
  }
  return next
}

/**
 * Runs `iterations` Lloyd iterations from `init`, checking every iteration that the state's
 * labels are exactly the reference kernel's; returns each iteration's distance fraction.
 */
async function expectLloydLabels(
  state: AccelState,
  points: Float32Array,
  n: number,
  d: number,
  init: Float32Array,
  k: number,
  iterations: number,
  results: AccelAssignResult[] = [],
): Promise<number[]> {
  let centroids = init
  const fractions: number[] = []
  for (let iteration = 0; iteration < iterations; iteration++) {
    const ref = assignReference(points, centroids, d)
    const got = await state.assign(centroids, k)
    expect(got.labels).toEqual(ref.labels)
    results.push(got)
    fractions.push(got.distancesEvaluated / (n * k))
    centroids = lloydUpdate(points, ref.labels, centroids, d, k)
  }
  return fractions
}

const datasets = [
  { name: 'clustered n=600 d=8 k=20', n: 600, d: 8, k: 20, blobs: 10, seed: 1 },
  { name: 'gaussian n=500 d=3 k=30', n: 500, d: 3, k: 30, blobs: 0, seed: 2 },
  { name: 'clustered n=700 d=16 k=60', n: 700, d: 16, k: 60, blobs: 25, seed: 3 },
  { name: 'd=1 n=300 k=12', n: 300, d: 1, k: 12, blobs: 4, seed: 4 },
]

type Factory = (points: Float32Array, n: number, d: number, opts: AccelOptions) => AccelState
const algorithms: Array<{ name: string; make: Factory }> = [
  { name: 'hamerly', make: (p, n, d, o) => createHamerlyState(p, n, d, o) },
  {
    name: 'hamerly (classic, no moved set)',
    make: (p, n, d, o) => createHamerlyState(p, n, d, { ...o, movedSet: false }),
  },
  {
    // denseMinWork 0 also without a kernel: the neighbourhood re-scan runs on these small sets.
    name: 'hamerly (neighbourhood re-scans)',
    make: (p, n, d, o) => createHamerlyState(p, n, d, { ...o, neighbours: true, denseMinWork: 0 }),
  },
  { name: 'yinyang (t = k/10)', make: (p, n, d, o) => createYinyangState(p, n, d, o) },
  { name: 'yinyang (t = 3)', make: (p, n, d, o) => createYinyangState(p, n, d, { ...o, groups: 3 }) },
  {
    name: 'yinyang (t = 5, full dense rows)',
    make: (p, n, d, o) => createYinyangState(p, n, d, { ...o, groups: 5, denseFetch: 'rows' }),
  },
  {
    name: 'yinyang (t = 3, filtered re-scans)',
    make: (p, n, d, o) => createYinyangState(p, n, d, { ...o, groups: 3, rescan: 'filtered' }),
  },
  { name: 'yinyang (t = 1)', make: (p, n, d, o) => createYinyangState(p, n, d, { ...o, groups: 1 }) },
  {
    name: 'yinyang (grouped: every failing point through per-group dense blocks)',
    make: (p, n, d, o) => createYinyangState(p, n, d, { ...o, fullRowFraction: 2, localMax: -1 }),
  },
  {
    name: 'yinyang (grouped: every failing point through full dense rows)',
    make: (p, n, d, o) => createYinyangState(p, n, d, { ...o, fullRowFraction: 0 }),
  },
  {
    name: 'yinyang (grouped: every failing point through the TypeScript local filter)',
    make: (p, n, d, o) => createYinyangState(p, n, d, { ...o, fullRowFraction: 2, localMax: 1e9 }),
  },
]

describe('accelerated assignment = Lloyd labels every iteration', () => {
  let ort: OrtKernel
  beforeAll(async () => {
    ort = await createOrtKernel({ intraOpNumThreads: 1, blockRows: 128 })
  })
  afterAll(async () => {
    await ort.dispose()
  })

  for (const data of datasets) {
    for (const algo of algorithms) {
      for (const withDense of [false, true]) {
        it(`${algo.name} on ${data.name}${withDense ? ' (dense first pass on ORT)' : ''}`, async () => {
          const { n, d, k } = data
          const { points } = generateBlobs({ n, d, blobs: data.blobs, seed: data.seed })
          const init = randomInit(points, n, d, k, createRng(data.seed + 100)).centroids
          // denseMinWork 0: every re-scan goes to the kernel, so these small sets exercise the dense paths.
          const state = algo.make(points, n, d, withDense ? { dense: ort, denseMinWork: 0 } : {})
          const fractions = await expectLloydLabels(state, points, n, d, init, k, 12)
          expect(fractions[0]).toBeGreaterThanOrEqual(1)
          // Bounds carried across iterations prune: later iterations evaluate fewer than n·k distances.
          for (const f of fractions.slice(3)) expect(f).toBeLessThan(1)
          if (data.blobs > 0 && k >= 20) expect(fractions[fractions.length - 1]).toBeLessThan(0.5)
        })
      }
    }
  }

  // Large k (issue 22): the vocabularies that matter are 10^4–10^6 words. Small d keeps the
  // brute-force reference affordable in a test (n·k·d = 2·10^8 multiply-adds an iteration).
  for (const algo of [algorithms[0]!, algorithms[3]!]) {
    it(`${algo.name} at k = 10,000 (d = 4, n = 5,000; dense passes on ORT) = Lloyd labels, pruning most distances`, async () => {
      const n = 5000
      const d = 4
      const k = 10_000
      const { points: centroidPool } = generateBlobs({ n: k, d, blobs: 50, seed: 31 })
      const { points } = generateBlobs({ n, d, blobs: 50, seed: 31 })
      // More centroids than points: many clusters are empty and keep their centroid (lloydUpdate).
      const state = algo.make(points, n, d, { dense: ort })
      const fractions = await expectLloydLabels(state, points, n, d, centroidPool, k, 5)
      expect(fractions[0]).toBeGreaterThanOrEqual(1)
      expect(fractions.at(-1)).toBeLessThan(0.5)
    }, 120_000)
  }

  it('hamerly as auto runs it at large k (k ≥ 4,096: neighbourhood re-scans) = Lloyd labels, replacing the second full pass', async () => {
    // Ten centroids per blob, as in the k = 20,000 benchmark: after the first update the centroids sit
    // inside their blobs and nearly every point fails Hamerly's single bound (the largest drift is
    // as large as the gaps), which used to cost a second full pass.
    const n = 16_000
    const d = 8
    const k = 4096
    const { points } = generateBlobs({ n, d, blobs: 410, seed: 51 })
    const init = randomInit(points, n, d, k, createRng(53)).centroids
    const state = createHamerlyState(points, n, d, { dense: ort })
    const results: AccelAssignResult[] = []
    const fractions = await expectLloydLabels(state, points, n, d, init, k, 6, results)
    const centroidRows = results.map((r) => r.centroidDistancesEvaluated / k)
    expect(fractions[0]).toBeGreaterThanOrEqual(1)
    // The second iteration went through centroid neighbourhoods (rows of centroid distances) and
    // evaluated a small share of the n·k point distances, not a full pass.
    expect(centroidRows[1]).toBeGreaterThan(0)
    expect(fractions[1]).toBeLessThan(0.2)
    // Off, the same iteration is a full pass: the comparison shows what the neighbourhoods saved.
    const classic = createHamerlyState(points, n, d, { dense: ort, neighbours: false })
    await classic.assign(init, k)
    const second = await classic.assign(
      lloydUpdate(points, assignReference(points, init, d).labels, init, d, k),
      k,
    )
    expect(second.distancesEvaluated / (n * k)).toBeGreaterThan(0.9)
  }, 120_000)

  it('stays exact where float32 cannot rank the centroids (far from the origin): near-ties are settled exactly', async () => {
    const n = 300
    const d = 16
    const k = 12
    const { points } = generateBlobs({ n, d, blobs: 4, seed: 31 })
    // At ‖x‖ ≈ 4,000 the float32 expansion's error bound dwarfs the gaps between distances.
    for (let i = 0; i < points.length; i++) points[i] += 1000
    let centroids = randomInit(points, n, d, k, createRng(7)).centroids
    const states = [
      createHamerlyState(points, n, d, { dense: ort, denseMinWork: 0 }),
      createYinyangState(points, n, d, { dense: ort, denseMinWork: 0, groups: 3 }),
      createYinyangState(points, n, d, { dense: ort, denseMinWork: 0, groups: 3, denseFetch: 'rows' }),
    ]
    for (let iteration = 0; iteration < 5; iteration++) {
      const ref = assignReference(points, centroids, d)
      for (const state of states) {
        const got = await state.assign(centroids, k)
        expect(got.labels).toEqual(ref.labels)
        // The first pass had to settle many near-ties with extra exact evaluations.
        if (iteration === 0) expect(got.distancesEvaluated).toBeGreaterThan(n * k + 2 * n)
      }
      centroids = lloydUpdate(points, ref.labels, centroids, d, k)
    }
  })

  it('hamerly stays exact on blobs where most centroids stop moving (moved sets up to every moving centroid)', async () => {
    // Many blobs per centroid, as in the convergence benchmark: after a few iterations most
    // clusters keep their members, and the plan measures every centroid that still moves (m = 48,
    // 26, 9, 5 here: not powers of two, so only that candidate). The labels must stay Lloyd's.
    const n = 8000
    const d = 32
    const k = 400
    const { points } = generateBlobs({ n, d, blobs: 800, seed: 41 })
    const init = randomInit(points, n, d, k, createRng(43)).centroids
    const state = createHamerlyState(points, n, d, { dense: ort })
    const fractions = await expectLloydLabels(state, points, n, d, init, k, 12)
    // And the bounds still prune late on.
    expect(Math.min(...fractions.slice(-5))).toBeLessThan(0.2)
  })

  it('starts over when k changes, and after reset()', async () => {
    const n = 200
    const d = 4
    const { points } = generateBlobs({ n, d, blobs: 5, seed: 9 })
    for (const state of [createHamerlyState(points, n, d), createYinyangState(points, n, d)]) {
      const c10 = randomInit(points, n, d, 10, createRng(1)).centroids
      await state.assign(c10, 10)
      const c7 = randomInit(points, n, d, 7, createRng(2)).centroids
      const got = await state.assign(c7, 7)
      expect(got.labels).toEqual(assignReference(points, c7, d).labels)
      expect(got.distancesEvaluated).toBe(n * 7)
      state.reset()
      const again = await state.assign(c7, 7)
      expect(again.distancesEvaluated).toBe(n * 7)
      expect(again.labels).toEqual(got.labels)
    }
  })

  it('is exact when a centroid jumps far (as when an empty cluster is split)', async () => {
    const n = 400
    const d = 6
    const k = 15
    const { points } = generateBlobs({ n, d, blobs: 6, seed: 21 })
    const centroids = randomInit(points, n, d, k, createRng(5)).centroids
    for (const state of [createHamerlyState(points, n, d), createYinyangState(points, n, d, { groups: 4 })]) {
      await state.assign(centroids, k)
      const moved = centroids.slice()
      // Centroid 3 becomes a perturbed copy of point 17.
      for (let t = 0; t < d; t++) moved[3 * d + t] = points[17 * d + t] + 0.01 * (t + 1)
      const got = await state.assign(moved, k)
      expect(got.labels).toEqual(assignReference(points, moved, d).labels)
      expect(got.changed).toBeGreaterThan(0)
    }
  })
})

describe('accumulatePartialSums', () => {
  it('matches sums computed by hand', () => {
    const points = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8])
    const { sums, counts } = accumulatePartialSums(points, new Int32Array([1, 0, 1, 1]), 2, 3)
    expect([...counts]).toEqual([1, 3, 0])
    expect([...sums]).toEqual([3, 4, 13, 16, 0, 0])
  })

  it('adds into existing accumulators (partitions combine by addition)', () => {
    const a = accumulatePartialSums(new Float32Array([1, 1]), new Int32Array([0]), 2, 1)
    const b = accumulatePartialSums(new Float32Array([2, 3]), new Int32Array([0]), 2, 1, a)
    expect(b.sums).toBe(a.sums)
    expect([...b.sums]).toEqual([3, 4])
    expect([...b.counts]).toEqual([2])
  })

  it('rejects a label outside [0, k)', () => {
    expect(() => accumulatePartialSums(new Float32Array([1]), new Int32Array([2]), 1, 2)).toThrow(/outside/)
  })
})
