import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { patternMatrix } from '../patterns.ts'
import { checkMapping, mappingCost, mappingProblem, randomConstraints, UNPINNED } from '../problem.ts'
import { builtInProfile } from '../site-profile.ts'
import { cheapestOneStepAway, randomInstance } from '../test-support/instances.ts'
import { planGeo } from './geo.ts'
import { MAX_KL_PROCESSES, planGeoRefined } from './geo-refined.ts'
import { planRandom } from './random.ts'
import { refineBySwaps } from './swap-refine.ts'

/** Ranks per site of a mapping. */
const counts = (m: number, siteOf: ArrayLike<number>) => {
  const c = new Array(m).fill(0)
  for (let i = 0; i < siteOf.length; i++) c[siteOf[i]!]++
  return c
}

describe('swap refinement', () => {
  it('never raises the cost, moves no pin and overfills no site (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 2, max: 24 }),
        fc.integer({ min: 1, max: 5 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (seed, n, m, pinRatio) => {
          const rng = createRng(seed)
          const p = randomInstance(rng, n, Math.min(m, n), pinRatio)
          const start = planRandom(p, rng)
          const r = refineBySwaps(p, start)
          expect(r.cost).toBeLessThanOrEqual(mappingCost(p, start))
          expect(r.cost).toBe(mappingCost(p, r.siteOf))
          for (let i = 0; i < n; i++) if (p.pinned[i] !== UNPINNED) expect(r.siteOf[i]).toBe(p.pinned[i])
          counts(p.sites, r.siteOf).forEach((c, s) => {
            expect(c).toBeLessThanOrEqual(p.capacity[s]!)
          })
        },
      ),
      { numRuns: 200, seed: 22 },
    )
  })

  it('ends where no single exchange or move to a free node lowers the cost (brute force)', () => {
    for (let t = 0; t < 25; t++) {
      const p = randomInstance(createRng(700 + t), 12, 3, 0.2)
      const { siteOf, cost } = refineBySwaps(p, planRandom(p, createRng(t)), { partners: 2 })
      expect(cheapestOneStepAway(p, siteOf)).toBeGreaterThanOrEqual(cost * (1 - 1e-9))
    }
  })

  it('stops at its time bound with the best mapping so far', () => {
    const p = randomInstance(createRng(9), 14, 3, 0)
    const start = planRandom(p, createRng(9))
    let clock = 0
    // The clock passes the bound after the first sweep has started.
    const r = refineBySwaps(p, start, { maxMs: 5, now: () => (clock += 4) })
    expect(r.passes).toBe(1)
    expect(r.truncated).toBe(true)
    expect(r.cost).toBeLessThanOrEqual(mappingCost(p, start))
  })
})

describe('geo-refined', () => {
  const profile = builtInProfile('ec2-4')
  const problem = (pattern: string, n: number) => {
    const matrix = patternMatrix(pattern, n)
    const pins = randomConstraints(n, mappingProblem(matrix, profile).capacity, 0.2, createRng(1))
    return mappingProblem(matrix, profile, pins)
  }

  it('costs at most geo’s plan from the same stream, with pins and capacities kept (Kernighan–Lin up to 1,024 ranks)', () => {
    for (const pattern of ['bt', 'lu', 'dnn']) {
      const p = problem(pattern, 64)
      const geo = planGeo(p, profile.coordinates, createRng(5))
      const refined = planGeoRefined(p, profile.coordinates, () => createRng(5))
      expect(refined.method).toBe('kernighan-lin')
      expect(refined.geoCost).toBe(geo.cost)
      expect(refined.cost).toBeLessThanOrEqual(geo.cost)
      expect(refined.cost).toBe(mappingCost(p, refined.siteOf))
      checkMapping(p, refined.siteOf)
    }
  })

  it('refines large plans by swap descent within its time bound', () => {
    const n = MAX_KL_PROCESSES + 76
    const p = problem('lu', n)
    const started = Date.now()
    const refined = planGeoRefined(p, profile.coordinates, () => createRng(5), { maxMs: 1500 })
    expect(refined.method).toBe('swap-descent')
    expect(refined.cost).toBeLessThan(refined.geoCost)
    checkMapping(p, refined.siteOf)
    // The bound applies after the fills; a fill of 1,100 LU ranks takes milliseconds.
    expect(Date.now() - started).toBeLessThan(1500 + 10_000)
  })
})
