import type { Rng } from '../../random/rng.ts'
import { type MappingProblem, mappingCost } from '../problem.ts'
import { planGeo } from './geo.ts'
import { kernighanLinPasses } from './mpipp.ts'
import { refineBySwaps } from './swap-refine.ts'

/** Most ranks refined by Kernighan–Lin passes (O(N³) a pass); larger plans use swap descent. */
export const MAX_KL_PROCESSES = 1024

/** Bounds of {@link planGeoRefined}. */
export interface GeoRefinedOptions {
  /** Time for the refinement after the fills, ms (default 20,000; the best so far is kept). */
  maxMs?: number
  now?: () => number
}

/** The refined plan, with the fill it started from. */
export interface GeoRefinedPlan {
  siteOf: Int32Array
  cost: number
  /** Algorithm 1's cheapest fill under the paper's rule: geo's own plan. */
  geoCost: number
  /** Distinct fills refined before the time bound (at least one). */
  fillsRefined: number
  /** How the fills were refined. */
  method: 'kernighan-lin' | 'swap-descent'
  truncated: boolean
}

/**
 * geo-refined: Algorithm 1's fills (every κ ≤ 5 and group order, under both process orders of
 * {@link planGeo}: the paper's `tie` and the `gain` variant), cheapest first, each refined by
 * pairwise exchanges while time remains, and the cheapest result kept. Up to
 * {@link MAX_KL_PROCESSES} ranks the refinement is MPIPP's Kernighan–Lin passes (uphill
 * exchanges allowed inside a pass, its best prefix kept), started from the fill instead of a
 * random mapping; above, a swap descent ({@link refineBySwaps}, O(N · M · partners) a sweep).
 * Every step keeps pins and site counts and a refinement never raises its start's cost, so the
 * result costs at most geo's plan (the same grouping draw when given geo's random stream).
 */
export function planGeoRefined(
  p: MappingProblem,
  coordinates: readonly (readonly number[])[],
  rng: Rng,
  o: GeoRefinedOptions = {},
): GeoRefinedPlan {
  const now = o.now ?? Date.now
  const fills: { siteOf: Int32Array; cost: number }[] = []
  const seen = new Set<string>()
  let geoCost = Number.POSITIVE_INFINITY
  planGeo(p, coordinates, rng, {
    rules: ['tie', 'gain'],
    onFill: (siteOf, cost, rule) => {
      if (rule === 'tie') geoCost = Math.min(geoCost, cost)
      const key = siteOf.join(',') // orders often fill alike: refine each mapping once
      if (!seen.has(key)) fills.push({ siteOf, cost })
      seen.add(key)
    },
  })
  const deadline = now() + (o.maxMs ?? 20_000)
  const late = () => now() > deadline
  const method = p.comm.processes <= MAX_KL_PROCESSES ? 'kernighan-lin' : 'swap-descent'
  fills.sort((a, b) => a.cost - b.cost)
  let best = fills[0]!
  let fillsRefined = 0
  let truncated = false
  for (const f of fills) {
    if (fillsRefined > 0 && late()) {
      truncated = true
      break
    }
    fillsRefined++
    let refined: { siteOf: Int32Array; cost: number }
    if (method === 'kernighan-lin') {
      const siteOf = f.siteOf.slice()
      // Passes gaining under a millionth of the cost end the search (flat landscapes, e.g. an all-to-all, otherwise crawl).
      truncated = kernighanLinPasses(p, siteOf, late, f.cost * 1e-6) || truncated
      refined = { siteOf, cost: mappingCost(p, siteOf) }
    } else {
      const r = refineBySwaps(p, f.siteOf, { maxMs: Math.max(deadline - now(), 0), now })
      truncated ||= r.truncated
      refined = r
    }
    if (refined.cost < best.cost) best = refined
  }
  return { siteOf: best.siteOf, cost: best.cost, geoCost, fillsRefined, method, truncated }
}
