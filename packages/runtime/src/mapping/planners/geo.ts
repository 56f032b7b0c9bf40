import type { Rng } from '../../random/rng.ts'
import { PlacementState } from '../placement-state.ts'
import { type MappingProblem, mappingCost } from '../problem.ts'
import { groupSites, permutations } from '../site-groups.ts'

/** Largest number of site groups Algorithm 1 orders exhaustively (5! = 120 orders). */
export const MAX_GROUPS = 5

/** What the geo planner tried and kept. */
export interface GeoPlan {
  siteOf: Int32Array
  cost: number
  /** The site groups of the kept plan, in fill order. */
  groupOrder: number[][]
  /** Group orders filled (all κ, all orders). */
  ordersTried: number
}

/**
 * Zhou & He's Algorithm 1. For each κ = 1 … min(5, M): group the sites by K-means on their
 * coordinates (Forgy start), and for every order of the groups, fill: pinned ranks first, then
 * group by group the ranks that gain most from running there ({@link fillInGroupOrder}); when
 * the group is full the next group takes over. The
 * cheapest filled mapping over all κ and orders is kept. (The paper bounds κ by 5 so every order
 * can be tried; trying each κ below it as well is this implementation's choice.)
 */
export function planGeo(p: MappingProblem, coordinates: readonly (readonly number[])[], rng: Rng): GeoPlan {
  let best: GeoPlan | undefined
  let ordersTried = 0
  const seen = new Set<string>()
  for (let kappa = 1; kappa <= Math.min(MAX_GROUPS, p.sites); kappa++) {
    const groups = groupSites(coordinates, kappa, rng)
    const key = JSON.stringify(groups)
    if (seen.has(key)) continue // K-means gave a grouping already tried
    seen.add(key)
    for (const order of permutations(groups)) {
      const siteOf = fillInGroupOrder(p, order)
      const cost = mappingCost(p, siteOf)
      ordersTried++
      if (!best || cost < best.cost) best = { siteOf, cost, groupOrder: order, ordersTried: 0 }
    }
  }
  return { ...best!, ordersTried }
}

/**
 * Algorithm 1's greedy fill for one order of site groups. While a group has free nodes, the
 * next rank is the one that gains most from running in this group rather than in a later one
 * (its cheapest later site's cost minus its cheapest site's cost here, against the ranks placed
 * so far), and it goes to its cheapest site of the group. In the last group, ranks come by their
 * tie to the placed ones.
 */
export function fillInGroupOrder(p: MappingProblem, order: readonly (readonly number[])[]): Int32Array {
  const state = new PlacementState(p)
  const m = p.sites
  order.forEach((group, g) => {
    const here = Int32Array.from(group)
    const later = Int32Array.from(order.slice(g + 1).flat())
    const { free, siteCost } = state
    const cheapest = (i: number, sites: Int32Array) => {
      let best = Number.POSITIVE_INFINITY
      for (let x = 0; x < sites.length; x++) {
        const s = sites[x]!
        if (free[s]! > 0 && siteCost[i * m + s]! < best) best = siteCost[i * m + s]!
      }
      return best
    }
    if (later.length > 0) {
      state.priority = (i) => {
        const elsewhere = cheapest(i, later)
        return elsewhere === Number.POSITIVE_INFINITY ? 0 : elsewhere - cheapest(i, here)
      }
      state.reprioritise()
    } else {
      state.priority = (i) => state.tie[i]!
      state.reprioritise()
    }
    while (!state.done) {
      const i = state.next()
      const s = state.cheapestSite(i, group)
      if (s < 0) break // the group is full
      state.place(i, s)
    }
  })
  return state.siteOf
}
