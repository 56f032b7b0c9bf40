import type { Rng } from '../../random/rng.ts'
import { type MappingProblem, mappingCost, UNPINNED } from '../problem.ts'
import { groupSites, permutations } from '../site-groups.ts'

/**
 * κ of {@link planGeo} unless told: min(M, 4). Algorithm 1 takes κ as an input and the paper
 * only says it is kept small (typically under 5) so that all κ! group orders can be tried. This implementation takes the largest such value the sites allow: with M ≤ 4 sites
 * (the paper's EC2 setting) every site is its own group and every site order is tried, which is
 * the search the paper describes before grouping is introduced for many sites; with more sites,
 * four groups keep the search at 4! = 24 fills.
 */
export const MAX_KAPPA = 4

/** The κ {@link planGeo} uses for M sites when not told: min(M, {@link MAX_KAPPA}). */
export function paperKappa(sites: number): number {
  return Math.min(sites, MAX_KAPPA)
}

/** What the geo planner tried and kept. */
export interface GeoPlan {
  siteOf: Int32Array
  cost: number
  /** κ used (groups asked of K-means; fewer are returned only when sites share coordinates). */
  kappa: number
  /** The site groups of the kept plan, in fill order (θ′). */
  groupOrder: number[][]
  /** Group orders filled: κ! for κ non-empty groups. */
  ordersTried: number
}

/** Options of {@link planGeo}. */
export interface GeoOptions {
  /** Number of site groups (Algorithm 1's input κ); default {@link paperKappa}. */
  kappa?: number
  /** Sees every filled mapping, one per group order, in the order tried. */
  onFill?: (siteOf: Int32Array, cost: number, order: readonly (readonly number[])[]) => void
}

/**
 * Zhou & He's Algorithm 1 ("Efficient Process Mapping in Geo-Distributed Cloud Data Centers",
 * SC17, §4), as published:
 * 1. line 1: K-means divides the M sites into κ groups ({@link groupSites}: Lloyd's iterations
 *    from a Forgy start, κ distinct sites drawn from `rng` as the first means, Euclidean
 *    distance) on each site's (latitude, longitude) — see {@link latitudeLongitude} for how
 *    they are read from the profile's coordinates;
 * 2. lines 2–16, for every order θ of the groups (all κ!, {@link permutations}), one fill
 *    ({@link fillSitesInOrder}) priced by the α-β cost function ({@link mappingCost});
 * 3. line 17: the cheapest fill is kept.
 *
 * Choices the paper leaves open, made here: κ defaults to {@link paperKappa}; equal costs
 * keep the first order tried (orders are Heap's permutations of the groups, which start sorted
 * by their lowest site index). The paper's text says the algorithm is also applied recursively
 * inside each group; its listing (line 10) instead takes a group's sites by available nodes,
 * and this follows the listing.
 */
export function planGeo(
  p: MappingProblem,
  coordinates: readonly (readonly number[])[],
  rng: Rng,
  o: GeoOptions = {},
): GeoPlan {
  const kappa = o.kappa ?? paperKappa(p.sites)
  if (!Number.isInteger(kappa) || kappa < 1 || kappa > 8)
    throw new RangeError(`κ must be an integer in 1 … 8 (κ! group orders are tried), got ${kappa}`)
  const groups = groupSites(latitudeLongitude(coordinates), kappa, rng)
  let best: { siteOf: Int32Array; cost: number; groupOrder: number[][] } | undefined
  let ordersTried = 0
  for (const order of permutations(groups)) {
    const siteOf = fillSitesInOrder(p, order)
    const cost = mappingCost(p, siteOf)
    ordersTried++
    o.onFill?.(siteOf, cost, order)
    if (!best || cost < best.cost) best = { siteOf, cost, groupOrder: order }
  }
  return { ...best!, kappa, ordersTried }
}

/**
 * Each site's (latitude, longitude) in degrees, the physical coordinates Algorithm 1 clusters.
 * Profiles carry `coordinates`: points on the unit sphere (three numbers of norm 1, as
 * `sphereCoordinates` builds them for the built-in profiles and for topologies with latitude
 * and longitude) are turned back into (latitude, longitude); any other coordinates — two
 * numbers taken to be (latitude, longitude) already, or a topology's latency rows when its
 * sites have no location — are clustered as given. Like the paper, the Euclidean distance on
 * (latitude, longitude) ignores that longitude wraps at ±180°.
 */
export function latitudeLongitude(coordinates: readonly (readonly number[])[]): number[][] {
  const onUnitSphere =
    coordinates.length > 0 &&
    coordinates.every((c) => c.length === 3 && Math.abs(Math.hypot(c[0]!, c[1]!, c[2]!) - 1) < 1e-9)
  if (!onUnitSphere) return coordinates.map((c) => [...c])
  const degrees = 180 / Math.PI
  return coordinates.map(([x, y, z]) => [
    Math.asin(Math.max(-1, Math.min(1, z!))) * degrees,
    Math.atan2(y!, x!) * degrees,
  ])
}

/** One step of a fill, as {@link fillSitesInOrder} reports it. */
export interface FillStep {
  /** `pin`: a constrained process (lines 4–6); `seed`: line 9–11; `fill`: lines 12–14. */
  kind: 'pin' | 'seed' | 'fill'
  process: number
  site: number
}

/**
 * Algorithm 1's mapping for one order θ of the site groups (lines 3–15):
 * - lines 4–6: every constrained (pinned) process goes to its site; each site's available
 *   nodes I_j drop by the processes pinned there; a site left with none is selected (full);
 * - lines 7–15: for each group in θ, for each of its sites: the unselected process with the
 *   heaviest communication quantity (its total traffic) seeds the group's unselected site with
 *   the most available nodes; then the I_j − 1 unselected processes with the heaviest traffic
 *   to the processes already on that site (its pinned ones included) fill it, one at a time;
 *   the site is then selected, and the next site of the group (then the next group) follows.
 *   It stops when every process is placed (sites not reached stay empty).
 *
 * Communication quantity is bytes: C_G(i, j) + C_G(j, i) between two processes (both
 * directions, the message counts A_G enter only the cost). Tie-breaks, not fixed by the paper:
 * - seed (line 9): equal total traffic → the lowest rank;
 * - site (line 10): equal available nodes → the lowest site index;
 * - fill (line 13): equal traffic to the site → the heavier total traffic, then the lowest
 *   rank; a process with no traffic to the site competes with traffic 0, so when none has any
 *   the heaviest remaining process (by total, then rank) is taken — the seed's rule.
 * O(non-zeros · log) per fill with a lazy heap.
 */
export function fillSitesInOrder(
  p: MappingProblem,
  order: readonly (readonly number[])[],
  onStep?: (step: FillStep) => void,
): Int32Array {
  const n = p.comm.processes
  const m = p.sites
  const nl = p.neighbours
  const { weight, total, heaviestFirst } = communicationQuantities(p)
  const siteOf = new Int32Array(n).fill(UNPINNED)
  const available = Int32Array.from(p.capacity)
  const pinnedAt: number[][] = Array.from({ length: m }, () => [])
  let left = n
  // Lines 4–5: constrained processes first; their sites' available nodes drop.
  for (let i = 0; i < n; i++) {
    const s = p.pinned[i]!
    if (s === UNPINNED) continue
    siteOf[i] = s
    available[s]!--
    pinnedAt[s]!.push(i)
    left--
    onStep?.({ kind: 'pin', process: i, site: s })
  }
  // Line 6: a site with no available node is selected.
  const siteSelected = Array.from(available, (a) => a <= 0)
  let cursor = 0
  /** Line 9's pick: the unselected process heaviest by total traffic (then lowest rank). */
  const heaviestUnselected = () => {
    while (siteOf[heaviestFirst[cursor]!] !== UNPINNED) cursor++
    return heaviestFirst[cursor]!
  }
  const affinity = new Float64Array(n) // traffic to the processes on the site being filled
  const touched: number[] = []
  const heap = new CandidateHeap((a, b) => total[a]! - total[b]! || b - a)
  const joinSite = (i: number) => {
    for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) {
      const j = nl.col[k]!
      if (siteOf[j] !== UNPINNED || weight[k] === 0) continue
      if (affinity[j] === 0) touched.push(j)
      affinity[j]! += weight[k]!
      heap.push(j, affinity[j]!)
    }
  }
  const place = (i: number, s: number, kind: 'seed' | 'fill') => {
    siteOf[i] = s
    left--
    onStep?.({ kind, process: i, site: s })
    joinSite(i)
  }
  for (const group of order)
    while (left > 0) {
      // Line 10: the group's unselected site with the most available nodes (lowest index on ties).
      let site = -1
      for (const s of group)
        if (
          !siteSelected[s] &&
          (site < 0 || available[s]! > available[site]! || (available[s] === available[site] && s < site))
        )
          site = s
      if (site < 0) break // every site of the group is selected: next group
      for (const i of touched) affinity[i] = 0
      touched.length = 0
      heap.clear()
      for (const i of pinnedAt[site]!) joinSite(i)
      // Lines 9–11: the heaviest unselected process seeds the site.
      place(heaviestUnselected(), site, 'seed')
      // Lines 12–14: I_j − 1 more, each the heaviest to the processes now on the site.
      for (let r = 1; r < available[site]! && left > 0; r++) {
        let next = -1
        while (heap.size > 0) {
          const [i, key] = heap.peek()
          if (siteOf[i] === UNPINNED && affinity[i] === key) {
            next = i
            break
          }
          heap.pop() // placed, or its traffic to the site has grown since
        }
        place(next >= 0 ? next : heaviestUnselected(), site, 'fill')
      }
      siteSelected[site] = true // line 15
    }
  return siteOf
}

interface Quantities {
  /** Per neighbour entry k of i: C_G(i, j) + C_G(j, i), bytes. */
  weight: Float64Array
  /** Per process: its communication quantity, Σ_j C_G(i, j) + C_G(j, i). */
  total: Float64Array
  /** Processes by total, heaviest first; equal totals by rank. */
  heaviestFirst: Int32Array
}

const quantityCache = new WeakMap<MappingProblem, Quantities>()

function communicationQuantities(p: MappingProblem): Quantities {
  const cached = quantityCache.get(p)
  if (cached) return cached
  const n = p.comm.processes
  const nl = p.neighbours
  const weight = new Float64Array(nl.col.length)
  const total = new Float64Array(n)
  for (let i = 0; i < n; i++)
    for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) {
      weight[k] = nl.outVolume[k]! + nl.inVolume[k]!
      total[i]! += weight[k]!
    }
  const heaviestFirst = Int32Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => total[b]! - total[a]! || a - b,
  )
  const q = { weight, total, heaviestFirst }
  quantityCache.set(p, q)
  return q
}

/**
 * A binary max-heap of (process, key) entries: the larger key first, equal keys by `before`
 * (a fixed order; positive: a comes first). Deletion is lazy: the caller pops entries whose
 * key is stale before trusting the top.
 */
class CandidateHeap {
  private readonly items: number[] = []
  private readonly keys: number[] = []

  constructor(private readonly before: (a: number, b: number) => number) {}

  get size(): number {
    return this.items.length
  }

  clear(): void {
    this.items.length = 0
    this.keys.length = 0
  }

  peek(): [number, number] {
    return [this.items[0]!, this.keys[0]!]
  }

  push(item: number, key: number): void {
    this.items.push(item)
    this.keys.push(key)
    let c = this.items.length - 1
    while (c > 0) {
      const parent = (c - 1) >> 1
      if (!this.higher(c, parent)) break
      this.swap(c, parent)
      c = parent
    }
  }

  pop(): void {
    const last = this.items.length - 1
    this.swap(0, last)
    this.items.pop()
    this.keys.pop()
    let c = 0
    for (;;) {
      const l = 2 * c + 1
      const r = l + 1
      let top = c
      if (l < this.items.length && this.higher(l, top)) top = l
      if (r < this.items.length && this.higher(r, top)) top = r
      if (top === c) return
      this.swap(c, top)
      c = top
    }
  }

  /** Entry x before entry y: by key, then by `before`. */
  private higher(x: number, y: number): boolean {
    const dk = this.keys[x]! - this.keys[y]!
    if (dk !== 0) return dk > 0
    return this.before(this.items[x]!, this.items[y]!) > 0
  }

  private swap(x: number, y: number): void {
    ;[this.items[x], this.items[y]] = [this.items[y]!, this.items[x]!]
    ;[this.keys[x], this.keys[y]] = [this.keys[y]!, this.keys[x]!]
  }
}
