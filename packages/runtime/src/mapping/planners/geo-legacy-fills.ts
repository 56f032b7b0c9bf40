import type { Rng } from '../../random/rng.ts'
import { PlacementState } from '../placement-state.ts'
import { type MappingProblem, mappingCost } from '../problem.ts'
import { groupSites, permutations } from '../site-groups.ts'

/**
 * The fills geo used before it followed the published Algorithm 1 (issue 30): kept, unchanged,
 * as geo-refined's starts. They are not the paper's algorithm: they try every κ ≤ 5, group
 * the sites by K-means on the profile's coordinates as given (unit-sphere points for the
 * built-in profiles), and fill a whole group at a time, each rank going to the group's site
 * where its links cost least.
 */

/** Largest number of site groups the legacy fills order exhaustively (5! = 120 orders). */
export const MAX_GROUPS = 5

/** What the legacy fills tried and kept. */
export interface LegacyGeoPlan {
  siteOf: Int32Array
  cost: number
  /** The site groups of the kept plan, in fill order. */
  groupOrder: number[][]
  /** Group orders filled (all κ, all orders). */
  ordersTried: number
}

/**
 * How a legacy fill picks the next rank inside a group. `tie`: the unplaced rank with the most
 * traffic to the placed ones (all of them, on any site). `gain`: the rank that gains most from
 * running in this group rather than in a later one.
 */
export type FillRule = 'tie' | 'gain'

/** Options of {@link planLegacyGeoFills}. */
export interface LegacyGeoOptions {
  /** Process order inside a group (default `tie`). */
  rules?: readonly FillRule[]
  /** Sees every filled mapping (all κ, orders and rules). */
  onFill?: (siteOf: Int32Array, cost: number, rule: FillRule) => void
}

/**
 * For each κ = 1 … min(5, M): group the sites by K-means on `coordinates` (Forgy start), and
 * for every order of the groups and every rule, fill ({@link fillInGroupOrder}); the cheapest
 * filled mapping is kept. Draws from `rng` only through {@link groupSites}.
 */
export function planLegacyGeoFills(
  p: MappingProblem,
  coordinates: readonly (readonly number[])[],
  rng: Rng,
  o: LegacyGeoOptions = {},
): LegacyGeoPlan {
  let best: LegacyGeoPlan | undefined
  let ordersTried = 0
  const groupings: number[][][] = []
  const seen = new Set<string>()
  for (let kappa = 1; kappa <= Math.min(MAX_GROUPS, p.sites); kappa++) {
    const groups = groupSites(coordinates, kappa, rng)
    const key = JSON.stringify(groups)
    if (!seen.has(key)) groupings.push(groups) // else K-means gave a grouping already tried
    seen.add(key)
  }
  for (const rule of o.rules ?? ['tie'])
    for (const groups of groupings)
      for (const order of permutations(groups)) {
        const siteOf = fillInGroupOrder(p, order, rule)
        const cost = mappingCost(p, siteOf)
        ordersTried++
        o.onFill?.(siteOf, cost, rule)
        if (!best || cost < best.cost) best = { siteOf, cost, groupOrder: order, ordersTried: 0 }
      }
  return { ...best!, ordersTried }
}

/**
 * The legacy fill for one order of site groups: pinned ranks first; then, while the current
 * group has free nodes, the next rank goes to the group's site where its links to the placed
 * ranks cost least (latency and bandwidth terms, both directions). The next rank is, by
 * `rule`: `tie`, the one with the most traffic to the placed ranks (the heaviest rank when none
 * is tied); `gain`, the one whose cheapest later site costs most above its cheapest site here
 * (in the last group, by tie).
 */
export function fillInGroupOrder(
  p: MappingProblem,
  order: readonly (readonly number[])[],
  rule: FillRule = 'tie',
): Int32Array {
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
    if (rule === 'gain' && later.length > 0) {
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
