import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { maxRowNormSq } from '../accel/dense-pass.ts'
import { createOrtKernel, float32ExpansionErrorBound, type OrtKernel } from './ort-kernel.ts'
import { assignReference, rowDistanceSq } from './reference-kernel.ts'

function randomMatrix(rows: number, d: number, seed: number, offset = 0): Float32Array {
  const rng = createRng(seed)
  const out = new Float32Array(rows * d)
  for (let i = 0; i < out.length; i++) out[i] = offset + rng.normal()
  return out
}

/**
 * Labels must match the brute-force reference except where two centroids are within float32
 * rounding of each other for that point (a tie at the kernel's precision): there the ORT label
 * must still be a centroid whose exact distance equals the best within the stated error bound.
 */
function expectSameAssignment(
  points: Float32Array,
  centroids: Float32Array,
  d: number,
  got: { labels: Int32Array; distancesSq: Float32Array },
) {
  const ref = assignReference(points, centroids, d)
  const n = ref.labels.length
  let maxCentroidNormSq = 0
  for (let j = 0; j < centroids.length / d; j++)
    maxCentroidNormSq = Math.max(maxCentroidNormSq, rowDistanceSq(centroids, j, new Float32Array(d), 0, d))
  let mismatches = 0
  for (let i = 0; i < n; i++) {
    const exact = ref.distancesSq[i]
    const bound = float32ExpansionErrorBound(
      rowDistanceSq(points, i, new Float32Array(d), 0, d),
      maxCentroidNormSq,
      d,
    )
    if (got.labels[i] !== ref.labels[i]) {
      mismatches++
      const chosen = rowDistanceSq(points, i, centroids, got.labels[i], d)
      expect(chosen - exact).toBeLessThanOrEqual(2 * bound)
    }
    expect(Math.abs(got.distancesSq[i] - exact)).toBeLessThanOrEqual(Math.max(1e-3 * exact, bound))
    expect(got.distancesSq[i]).toBeGreaterThanOrEqual(0)
  }
  // Near-ties at float32 precision are rare on continuous random data.
  expect(mismatches).toBeLessThanOrEqual(Math.ceil(n / 200))
}

describe('ort kernel', () => {
  let kernel: OrtKernel
  beforeAll(async () => {
    // A small block so that n not a multiple of the block is exercised cheaply.
    kernel = await createOrtKernel({ intraOpNumThreads: 1, blockRows: 64 })
  })
  afterAll(async () => {
    await kernel.dispose()
  })

  const cases = [
    { n: 200, d: 16, k: 10 },
    { n: 129, d: 7, k: 33 }, // n = 2 blocks + 1 row
    { n: 300, d: 1, k: 5 }, // d = 1
    { n: 100, d: 12, k: 1 }, // k = 1
    { n: 65, d: 128, k: 40 },
    // The two-level reduction: a padded last group (1000 = 32 groups of 32 with 24 padding rows),
    // and an exact square (64 = 8 × 8).
    { n: 150, d: 24, k: 1000 },
    { n: 90, d: 6, k: 64 },
  ]
  for (const { n, d, k } of cases) {
    it(`matches the reference kernel for n=${n}, d=${d}, k=${k}`, async () => {
      const points = randomMatrix(n, d, 1000 + n + d + k, 3)
      const centroids = randomMatrix(k, d, 2000 + n + d + k, 3)
      const got = await kernel.assign(points, centroids, d)
      expect(got.labels.length).toBe(n)
      expectSameAssignment(points, centroids, d, got)
      if (k === 1) expect(got.labels.every((l) => l === 0)).toBe(true)
    })
  }

  it('reuses one session across calls with different k and data', async () => {
    const d = 9
    const before = kernel.sessionsCreated
    for (const k of [3, 17, 2]) {
      const points = randomMatrix(70, d, k, 0)
      const centroids = randomMatrix(k, d, 50 + k, 0)
      expectSameAssignment(points, centroids, d, await kernel.assign(points, centroids, d))
    }
    // One new session for the new d, shared by all three k.
    expect(kernel.sessionsCreated).toBe(before + 1)
  })

  it('gives 0 (not a negative number) for points that sit on a centroid', async () => {
    const d = 32
    const centroids = randomMatrix(5, d, 9, 100)
    const points = centroids.slice()
    const got = await kernel.assign(points, centroids, d)
    expect([...got.labels]).toEqual([0, 1, 2, 3, 4])
    for (const v of got.distancesSq) expect(v).toBeGreaterThanOrEqual(0)
  })

  it('returns the full distance block within the stated error bound', async () => {
    const n = 70
    const d = 20
    const k = 6
    const points = randomMatrix(n, d, 77, 1)
    const centroids = randomMatrix(k, d, 78, 1)
    const dist = await kernel.distances(points, centroids, d)
    expect(dist.length).toBe(n * k)
    const zero = new Float32Array(d)
    let maxC = 0
    for (let j = 0; j < k; j++) maxC = Math.max(maxC, rowDistanceSq(centroids, j, zero, 0, d))
    for (let i = 0; i < n; i++) {
      const bound = kernel.distanceErrorBound(rowDistanceSq(points, i, zero, 0, d), maxC, d)
      for (let j = 0; j < k; j++) {
        expect(Math.abs(dist[i * k + j] - rowDistanceSq(points, i, centroids, j, d))).toBeLessThanOrEqual(
          bound,
        )
      }
    }
  })

  it('returns the nearest two centroids in order, within the error bound', async () => {
    const d = 10
    // k = 2 (two groups of one real row each, padded), 23 (5 groups of 5, 2 padding rows), 1000 (32 of 32, 24 padding rows).
    for (const [n, k] of [
      [150, 2],
      [97, 23],
      [60, 1000],
    ]) {
      const points = randomMatrix(n, d, 300 + k, 0)
      const centroids = randomMatrix(k, d, 400 + k, 0)
      const { labels, distancesSq } = await kernel.nearestTwo(points, centroids, d)
      const zero = new Float32Array(d)
      let maxC = 0
      for (let j = 0; j < k; j++) maxC = Math.max(maxC, rowDistanceSq(centroids, j, zero, 0, d))
      for (let i = 0; i < n; i++) {
        const exact = Array.from({ length: k }, (_, j) => rowDistanceSq(points, i, centroids, j, d)).sort(
          (a, b) => a - b,
        )
        const bound = kernel.distanceErrorBound(rowDistanceSq(points, i, zero, 0, d), maxC, d)
        expect(Math.abs(distancesSq[2 * i] - exact[0])).toBeLessThanOrEqual(bound)
        expect(Math.abs(distancesSq[2 * i + 1] - exact[1])).toBeLessThanOrEqual(bound)
        expect(Math.abs(rowDistanceSq(points, i, centroids, labels[i], d) - exact[0])).toBeLessThanOrEqual(
          2 * bound,
        )
      }
    }
    await expect(kernel.nearestTwo(new Float32Array(4), new Float32Array(2), 2)).rejects.toMatchObject({
      code: 'KERNEL_K_TOO_SMALL',
    })
  })

  it('nearestM: the count nearest centroids in order, each value and the cut within the error bound', async () => {
    const d = 12
    for (const [n, k, count] of [
      [40, 30, 7],
      [25, 500, 40],
      [10, 9, 9],
    ]) {
      const points = randomMatrix(n, d, 700 + k, 0)
      const centroids = randomMatrix(k, d, 800 + k, 0)
      const { indices, distancesSq } = await kernel.nearestM(points, centroids, count, d)
      const zero = new Float32Array(d)
      let maxC = 0
      for (let j = 0; j < k; j++) maxC = Math.max(maxC, rowDistanceSq(centroids, j, zero, 0, d))
      for (let i = 0; i < n; i++) {
        const bound = kernel.distanceErrorBound(rowDistanceSq(points, i, zero, 0, d), maxC, d)
        const exact = Array.from({ length: k }, (_, j) => rowDistanceSq(points, i, centroids, j, d))
        const sorted = [...exact].sort((a, b) => a - b)
        const returned = new Set<number>()
        for (let p = 0; p < count; p++) {
          const j = indices[i * count + p]
          const v = distancesSq[i * count + p]
          returned.add(j)
          // Each value is its own centroid's distance, the p-th smallest, within the bound; ascending.
          expect(Math.abs(v - exact[j])).toBeLessThanOrEqual(bound)
          expect(Math.abs(v - sorted[p])).toBeLessThanOrEqual(2 * bound)
          if (p > 0) expect(v).toBeGreaterThanOrEqual(distancesSq[i * count + p - 1])
        }
        expect(returned.size).toBe(count)
        // What the neighbourhoods rely on: every centroid left out is at least the last value − bound away.
        const last = distancesSq[i * count + count - 1]
        for (let j = 0; j < k; j++)
          if (!returned.has(j)) expect(exact[j]).toBeGreaterThanOrEqual(last - bound)
      }
    }
    await expect(kernel.nearestM(new Float32Array(4), new Float32Array(4), 3, 2)).rejects.toMatchObject({
      code: 'KERNEL_BAD_COUNT',
    })
  })

  it('within: per row the columns below its threshold (ascending), values and the cut within the error bound', async () => {
    const d = 12
    const n = 60
    const k = 400
    const points = randomMatrix(n, d, 901, 0.5)
    const centroids = randomMatrix(k, d, 902, 0.5)
    const zero = new Float32Array(d)
    const maxC = maxRowNormSq(centroids, k, d)
    // Thresholds on ‖c‖² − 2x·c around the 5th to 50th smallest distance, one row far below everything.
    const thresholds = new Float32Array(n)
    for (let i = 0; i < n; i++) {
      const exact = Array.from({ length: k }, (_, j) => rowDistanceSq(points, i, centroids, j, d)).sort(
        (a, b) => a - b,
      )
      thresholds[i] = (i === 0 ? -1e6 : exact[5 + (i % 45)]) - rowDistanceSq(points, i, zero, 0, d)
    }
    const { rowStart, columns, partial } = await kernel.within(points, centroids, thresholds, d)
    expect(rowStart[0]).toBe(0)
    expect(rowStart[1]).toBe(0)
    for (let i = 0; i < n; i++) {
      const xn = rowDistanceSq(points, i, zero, 0, d)
      const bound = kernel.distanceErrorBound(xn, maxC, d)
      const kept = new Set<number>()
      for (let e = rowStart[i]; e < rowStart[i + 1]; e++) {
        const j = columns[e]
        if (e > rowStart[i]) expect(j).toBeGreaterThan(columns[e - 1])
        kept.add(j)
        expect(partial[e]).toBeLessThan(thresholds[i])
        expect(Math.abs(partial[e] + xn - rowDistanceSq(points, i, centroids, j, d))).toBeLessThanOrEqual(
          bound,
        )
      }
      // What the neighbourhoods rely on: every centroid left out is ≥ threshold + ‖x‖² − bound away.
      for (let j = 0; j < k; j++)
        if (!kept.has(j))
          expect(rowDistanceSq(points, i, centroids, j, d)).toBeGreaterThanOrEqual(thresholds[i] + xn - bound)
    }
    // With column radii² (a third of the columns none): an entry is kept by either side, and an
    // entry left out is beyond both (what the symmetric neighbourhood fetch relies on).
    const radiusSq = Float64Array.from({ length: k }, (_, j) =>
      j % 3 === 0
        ? Number.NEGATIVE_INFINITY
        : rowDistanceSq(centroids, j, points, j % n, d) * (0.5 + (j % 7) / 7),
    )
    const both = await kernel.withinEither(points, centroids, thresholds, radiusSq, d)
    let wrong = 0
    for (let i = 0; i < n; i++) {
      const xn = rowDistanceSq(points, i, zero, 0, d)
      const bound = kernel.distanceErrorBound(xn, maxC, d)
      const kept = new Set<number>()
      for (let e = both.rowStart[i]; e < both.rowStart[i + 1]; e++) {
        const j = both.columns[e]
        kept.add(j)
        if (!(both.partial[e] < thresholds[i] || xn + both.partial[e] < radiusSq[j])) wrong++
      }
      for (let j = 0; j < k; j++) {
        const exact = rowDistanceSq(points, i, centroids, j, d)
        if (!kept.has(j) && (exact < thresholds[i] + xn - bound || exact < radiusSq[j] - bound)) wrong++
      }
      // More than the rows' thresholds alone keep.
      expect(both.rowStart[i + 1] - both.rowStart[i]).toBeGreaterThanOrEqual(rowStart[i + 1] - rowStart[i])
    }
    expect(wrong).toBe(0)
    expect(both.columns.length).toBeGreaterThan(columns.length)
    await expect(kernel.within(points, centroids, new Float32Array(3), d)).rejects.toMatchObject({
      code: 'KERNEL_BAD_SHAPE',
    })
    await expect(
      kernel.withinEither(points, centroids, thresholds, new Float64Array(3), d),
    ).rejects.toMatchObject({
      code: 'KERNEL_BAD_SHAPE',
    })
  })

  it('listDots: each group’s points against its centroids, G × L × P dot products within the bound', async () => {
    const d = 12
    const n = 50
    const k = 70
    const points = randomMatrix(n, d, 911, 0.5)
    const centroids = randomMatrix(k, d, 912, 0.5)
    const groups = 5
    const perGroup = 4
    const listLength = 9
    const rng = createRng(913)
    const pointIndex = Int32Array.from({ length: groups * perGroup }, () => Math.floor(rng.next() * n))
    const listIndex = Int32Array.from({ length: groups * listLength }, () => Math.floor(rng.next() * k))
    const dots = await kernel.listDots(points, centroids, pointIndex, listIndex, groups, d)
    expect(dots.length).toBe(groups * listLength * perGroup)
    const zero = new Float32Array(d)
    const maxC = maxRowNormSq(centroids, k, d)
    for (let g = 0; g < groups; g++)
      for (let l = 0; l < listLength; l++)
        for (let p = 0; p < perGroup; p++) {
          const i = pointIndex[g * perGroup + p]
          const j = listIndex[g * listLength + l]
          const xn = rowDistanceSq(points, i, zero, 0, d)
          const cn = rowDistanceSq(centroids, j, zero, 0, d)
          const viaDot = xn + cn - 2 * dots[(g * listLength + l) * perGroup + p]
          expect(Math.abs(viaDot - rowDistanceSq(points, i, centroids, j, d))).toBeLessThanOrEqual(
            kernel.distanceErrorBound(xn, maxC, d),
          )
        }
    await expect(
      kernel.listDots(points, centroids, Int32Array.of(n), Int32Array.of(0), 1, d),
    ).rejects.toMatchObject({ code: 'KERNEL_BAD_SHAPE' })
  })

  it('groupMinima: the nearest row and every group minimum without it, padding rows never chosen', async () => {
    const d = 12
    const n = 130
    const t = 4
    const size = 5
    const points = randomMatrix(n, d, 51, 0)
    // Member-major rows: row p·t + q is member p of group q; the last row of group 3 is padding.
    const rows = randomMatrix(t * size, d, 52, 0)
    const norms = new Float32Array(t * size)
    const zero = new Float32Array(d)
    const pad = (size - 1) * t + 3
    rows.fill(0, pad * d, pad * d + d)
    for (let r = 0; r < t * size; r++) norms[r] = r === pad ? 1e30 : rowDistanceSq(rows, r, zero, 0, d)
    const got = await kernel.groupMinima(points, rows, norms, t, d)
    let maxC = 0
    for (let r = 0; r < t * size; r++) if (r !== pad) maxC = Math.max(maxC, norms[r])
    for (let i = 0; i < n; i++) {
      const exact = Array.from({ length: t * size }, (_, r) =>
        r === pad ? Number.POSITIVE_INFINITY : rowDistanceSq(points, i, rows, r, d),
      )
      const bound = kernel.distanceErrorBound(rowDistanceSq(points, i, zero, 0, d), maxC, d)
      const nearest = got.nearest[i]
      expect(nearest).not.toBe(pad)
      expect(exact[nearest] - Math.min(...exact)).toBeLessThanOrEqual(2 * bound)
      expect(Math.abs(got.nearestSq[i] - exact[nearest])).toBeLessThanOrEqual(bound)
      for (let q = 0; q < t; q++) {
        let m = Number.POSITIVE_INFINITY
        for (let p = 0; p < size; p++) if (p * t + q !== nearest) m = Math.min(m, exact[p * t + q])
        expect(Math.abs(got.groupMinSq[i * t + q] - m)).toBeLessThanOrEqual(bound)
      }
    }
    await expect(kernel.groupMinima(points, rows, norms, 3, d)).rejects.toMatchObject({
      code: 'KERNEL_BAD_GROUPS',
    })
  })

  it('nearestExcluding: the nearest centroid other than the excluded one, within the error bound', async () => {
    const d = 9
    // k = 1 excluded leaves only the padding (huge); 32 and 3 over 2 blocks of 64 rows and a rest.
    for (const [n, k] of [
      [150, 32],
      [70, 3],
      [10, 1],
    ]) {
      const points = randomMatrix(n, d, 500 + k, 0.5)
      const centroids = randomMatrix(k, d, 600 + k, 0)
      const zero = new Float32Array(d)
      const norms = Float64Array.from({ length: n }, (_, i) => rowDistanceSq(points, i, zero, 0, d))
      // Every point excludes its exact nearest, a fixed other one, or none (k), in turn.
      const exclude = new Int32Array(n)
      for (let i = 0; i < n; i++) {
        const nearest = assignReference(points.subarray(i * d, i * d + d), centroids, d).labels[0]
        exclude[i] = i % 3 === 0 ? nearest : i % 3 === 1 ? (7 * i) % k : k
      }
      const got = await kernel.nearestExcluding(points, centroids, exclude, norms, d)
      let maxC = 0
      for (let j = 0; j < k; j++) maxC = Math.max(maxC, rowDistanceSq(centroids, j, zero, 0, d))
      for (let i = 0; i < n; i++) {
        let m = Number.POSITIVE_INFINITY
        for (let j = 0; j < k; j++)
          if (j !== exclude[i]) m = Math.min(m, rowDistanceSq(points, i, centroids, j, d))
        if (m === Number.POSITIVE_INFINITY) {
          expect(got[i]).toBeGreaterThan(1e30)
          continue
        }
        expect(Math.abs(got[i] - m)).toBeLessThanOrEqual(kernel.distanceErrorBound(norms[i], maxC, d))
      }
    }
    const p = new Float32Array(4)
    const c = new Float32Array(4)
    await expect(
      kernel.nearestExcluding(p, c, Int32Array.of(0, 3), new Float64Array(2), 2),
    ).rejects.toMatchObject({
      code: 'KERNEL_BAD_EXCLUDE',
    })
    await expect(
      kernel.nearestExcluding(p, c, Int32Array.of(0), new Float64Array(2), 2),
    ).rejects.toMatchObject({
      code: 'KERNEL_BAD_SHAPE',
    })
  })

  it('prepare creates the sessions of the listed passes only, so later calls create none', async () => {
    const own = await createOrtKernel({ intraOpNumThreads: 1, blockRows: 64 })
    try {
      await own.prepare(6, 40, ['assign'])
      expect(own.sessionsCreated).toBe(1)
      await own.prepare(6, 40, ['nearestTwo', 'nearestExcluding'])
      const prepared = own.sessionsCreated
      expect(prepared).toBe(3)
      const points = randomMatrix(100, 6, 61, 0)
      const centroids = randomMatrix(40, 6, 62, 0)
      await own.assign(points, centroids, 6)
      await own.nearestTwo(points, centroids, 6)
      await own.nearestExcluding(
        points,
        centroids.subarray(0, 5 * 6),
        new Int32Array(100),
        new Float64Array(100),
        6,
      )
      expect(own.sessionsCreated).toBe(prepared)
    } finally {
      await own.dispose()
    }
  })

  it('rejects shapes that are not multiples of d', async () => {
    await expect(kernel.assign(new Float32Array(10), new Float32Array(6), 3)).rejects.toMatchObject({
      code: 'KERNEL_BAD_SHAPE',
    })
  })
})
