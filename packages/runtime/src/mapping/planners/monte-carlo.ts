import type { Rng } from '../../random/rng.ts'
import { type MappingProblem, mappingCost } from '../problem.ts'
import { randomMappingSampler } from './random.ts'

/** The costs of K random mappings and the best of them. */
export interface MonteCarloResult {
  samples: number
  /** Every sample's cost, in draw order (best-of-K for any K ≤ samples is a prefix minimum). */
  costs: Float64Array
  best: number
  bestSiteOf: Int32Array
}

/** Monte Carlo search: K uniformly random pin-honouring mappings, each priced by {@link mappingCost}. */
export function monteCarloSearch(p: MappingProblem, samples: number, rng: Rng): MonteCarloResult {
  const draw = randomMappingSampler(p, rng)
  const costs = new Float64Array(samples)
  let best = Number.POSITIVE_INFINITY
  let bestSiteOf = new Int32Array(0)
  for (let k = 0; k < samples; k++) {
    const siteOf = draw()
    const cost = mappingCost(p, siteOf)
    costs[k] = cost
    if (cost < best) {
      best = cost
      bestSiteOf = siteOf.slice()
    }
  }
  return { samples, costs, best, bestSiteOf }
}

/** The share of `costs` strictly below `cost`. */
export function fractionBelow(costs: Float64Array, cost: number): number {
  if (costs.length === 0) return 0
  let below = 0
  for (let k = 0; k < costs.length; k++) if (costs[k]! < cost) below++
  return below / costs.length
}
