import type { Rng } from '../../random/rng.ts'
import { type MappingProblem, mappingCost } from '../problem.ts'
import { planGeo } from './geo.ts'
import { planLegacyGeoFills } from './geo-legacy-fills.ts'
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
  /** The cost of geo's own plan (Algorithm 1 as published, from the same random stream). */
  geoCost: number
  /** geo's plan was cheaper than every refined start and was returned as it is. */
  keptGeo: boolean
  /** Distinct fills refined before the time bound (at least one). */
  fillsRefined: number
  /** How the fills were refined. */
  method: 'kernighan-lin' | 'swap-descent'
  truncated: boolean
}

/**
 * geo-refined (not in the paper): the legacy fills of {@link planLegacyGeoFills} (every κ ≤ 5
 * and group order, under both of its process orders, `tie` and `gain`; the fills geo made
 * before it followed the published Algorithm 1), cheapest first, each refined by pairwise
 * exchanges while time remains, and the cheapest result kept. Up to {@link MAX_KL_PROCESSES}
 * ranks the refinement is MPIPP's Kernighan–Lin passes (uphill exchanges allowed inside a
 * pass, its best prefix kept), started from the fill instead of a random mapping; above, a swap
 * descent ({@link refineBySwaps}, O(N · M · partners) a sweep). Every step keeps pins and site
 * counts and a refinement never raises its start's cost. geo's own plan ({@link planGeo}, the
 * published Algorithm 1) is computed on a second stream of the same seed (`streamOf()` twice),
 * and returned instead when it is cheaper than every refined fill, so the result never costs
 * more than geo's plan.
 */
export function planGeoRefined(
  p: MappingProblem,
  coordinates: readonly (readonly number[])[],
  /** A fresh random stream of the planner's seed, each call the same (geo's stream). */
  streamOf: () => Rng,
  o: GeoRefinedOptions = {},
): GeoRefinedPlan {
  const now = o.now ?? Date.now
  const fills: { siteOf: Int32Array; cost: number }[] = []
  const seen = new Set<string>()
  planLegacyGeoFills(p, coordinates, streamOf(), {
    rules: ['tie', 'gain'],
    onFill: (siteOf, cost) => {
      const key = siteOf.join(',') // orders often fill alike: refine each mapping once
      if (!seen.has(key)) fills.push({ siteOf, cost })
      seen.add(key)
    },
  })
  const geo = planGeo(p, coordinates, streamOf())
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
  const keptGeo = geo.cost < best.cost
  if (keptGeo) best = geo
  return { siteOf: best.siteOf, cost: best.cost, geoCost: geo.cost, keptGeo, fillsRefined, method, truncated }
}
