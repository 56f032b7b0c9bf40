import { describe, expect, it } from 'vitest'
import { createRng } from '../random/rng.ts'
import { CommMatrixBuilder, fromDense, toDense } from './comm-matrix.ts'
import { mappingCost, mappingProblem, nodesOf, randomConstraints, UNPINNED } from './problem.ts'
import type { SiteProfile } from './site-profile.ts'
import { addNeighbourTerms } from './site-terms.ts'
import { randomInstance } from './test-support/instances.ts'

// Two sites with asymmetric links: latency s, bandwidth B/s.
const twoSites: SiteProfile = {
  name: 'two',
  sites: ['a', 'b'],
  latency: [
    [1e-3, 0.05],
    [0.07, 2e-3],
  ],
  bandwidth: [
    [1e9, 1e7],
    [2e7, 5e8],
  ],
  coordinates: [[0], [1]],
  nodes: [2, 2],
}

// 0 → 1: 1 MB in 2 messages; 1 → 2: 3 MB in 1; 2 → 0: 0.5 MB in 4.
const triangle = new CommMatrixBuilder(3).add(0, 1, 1e6, 2).add(1, 2, 3e6, 1).add(2, 0, 5e5, 4).build()

describe('mappingCost (α-β: Σ A·L + C/B)', () => {
  it('matches hand-computed costs on asymmetric links', () => {
    const p = mappingProblem(triangle, twoSites)
    // [a, a, b]: 0→1 in a: 2·1e-3 + 1e6/1e9 = 0.003; 1→2 a→b: 0.05 + 3e6/1e7 = 0.35; 2→0 b→a: 4·0.07 + 5e5/2e7 = 0.305.
    expect(mappingCost(p, [0, 0, 1])).toBeCloseTo(0.658, 12)
    // [b, a, a]: 0→1 b→a: 2·0.07 + 1e6/2e7 = 0.19; 1→2 in a: 1e-3 + 3e6/1e9 = 0.004; 2→0 a→b: 4·0.05 + 5e5/1e7 = 0.25.
    expect(mappingCost(p, [1, 0, 0])).toBeCloseTo(0.444, 12)
  })

  it('adds repeated sends and ignores self-sends', () => {
    const m = new CommMatrixBuilder(2).add(0, 1, 1e6, 1).add(0, 1, 1e6, 1).add(1, 1, 9e9, 9).build()
    const p = mappingProblem(m, { ...twoSites, nodes: [1, 1] })
    expect(mappingCost(p, [0, 1])).toBeCloseTo(2 * 0.05 + 2e6 / 1e7, 12)
  })

  it('equals half the sum of every rank’s per-site link cost (the planners’ incremental tables)', () => {
    for (let t = 0; t < 20; t++) {
      const rng = createRng(t)
      const p = randomInstance(rng, 9, 3, 0)
      const siteOf = Int32Array.from({ length: 9 }, () => rng.int(3))
      const table = new Float64Array(9 * 3)
      for (let i = 0; i < 9; i++) addNeighbourTerms(p, table, i, siteOf[i]!, 1)
      let sum = 0
      for (let i = 0; i < 9; i++) sum += table[i * 3 + siteOf[i]!]!
      expect(sum / 2).toBeCloseTo(mappingCost(p, siteOf), 6)
    }
  })

  it('round-trips dense matrices and numbers nodes site by site', () => {
    const { volume, messages } = toDense(triangle)
    expect(toDense(fromDense(3, volume, messages))).toEqual({ volume, messages })
    const p = mappingProblem(triangle, twoSites)
    expect(Array.from(nodesOf(p, [1, 0, 1]))).toEqual([2, 0, 3])
  })

  it('refuses more processes than nodes and pins beyond a site’s nodes, with codes', () => {
    expect(() => mappingProblem(triangle, { ...twoSites, nodes: [1, 1] })).toThrow(
      expect.objectContaining({ code: 'MAPPING_CAPACITY' }),
    )
    expect(() => mappingProblem(triangle, { ...twoSites, nodes: [1, 2] }, [0, 0, UNPINNED])).toThrow(
      expect.objectContaining({ code: 'MAPPING_CAPACITY' }),
    )
    expect(() => mappingProblem(triangle, twoSites, [5, UNPINNED, UNPINNED])).toThrow(
      expect.objectContaining({ code: 'BAD_CONSTRAINT' }),
    )
    expect(() =>
      mappingProblem(triangle, {
        ...twoSites,
        bandwidth: [
          [1, 0],
          [1, 1],
        ],
      }),
    ).toThrow(
      expect.objectContaining({ code: 'BAD_PROFILE', message: expect.stringContaining('bandwidth[0][1]') }),
    )
  })
})

describe('randomConstraints', () => {
  it('pins round(ratio · N) ranks, never more to a site than its nodes', () => {
    for (let seed = 0; seed < 20; seed++) {
      const pins = randomConstraints(64, [16, 16, 16, 16], 0.2, createRng(seed))
      expect(pins.filter((s) => s !== UNPINNED).length).toBe(13)
      const all = randomConstraints(10, [3, 3, 4], 1, createRng(seed))
      expect([0, 1, 2].map((s) => all.filter((x) => x === s).length)).toEqual([3, 3, 4])
    }
    expect(() => randomConstraints(4, [4], 1.5, createRng(1))).toThrow(
      expect.objectContaining({ code: 'BAD_CONSTRAINT' }),
    )
  })
})
