import FlatQueue from 'flatqueue'
import { type MappingProblem, UNPINNED } from './problem.ts'
import { addNeighbourTerms, pairWeights } from './site-terms.ts'

/**
 * A partial mapping grown one rank at a time, as the greedy planners (Algorithm 1's fill and
 * Hoefler & Snir's Greedy) grow it. Pinned ranks are placed at construction (constraints
 * first). `next()` yields the unplaced rank with the highest `priority` among those tied to a
 * placed rank; a rank tied to none counts as priority 0 and the heaviest such rank comes first.
 * `place()` puts a rank on a site and updates every neighbour's price per site (`siteCost`).
 */
export class PlacementState {
  readonly siteOf: Int32Array
  readonly free: Int32Array
  /** siteCost[i·M + s]: the cost of i's links to placed ranks if i ran at site s. */
  readonly siteCost: Float64Array
  /** Tie (bytes) of each rank to the placed ranks. */
  readonly tie: Float64Array
  placedCount = 0
  /** The rank order key; by default the tie, as Hoefler & Snir's Greedy orders ranks. */
  priority: (i: number) => number = (i) => this.tie[i]!
  private readonly weights: Float64Array
  private readonly queue = new FlatQueue<number>()
  private readonly byTotal: Int32Array
  private untiedCursor = 0

  constructor(readonly p: MappingProblem) {
    const n = p.comm.processes
    this.siteOf = new Int32Array(n).fill(UNPINNED)
    this.free = Int32Array.from(p.capacity)
    this.siteCost = new Float64Array(n * p.sites)
    this.tie = new Float64Array(n)
    this.weights = pairWeights(p)
    this.byTotal = heaviestFirst(p, this.weights)
    for (let i = 0; i < n; i++) if (p.pinned[i] !== UNPINNED) this.place(i, p.pinned[i]!)
  }

  get done(): boolean {
    return this.placedCount === this.p.comm.processes
  }

  /** Re-keys every queued rank (after `priority` changed its meaning, e.g. a new site group). */
  reprioritise(): void {
    this.queue.clear()
    for (let i = 0; i < this.siteOf.length; i++)
      if (this.siteOf[i] === UNPINNED && this.tie[i]! > 0) this.queue.push(i, -this.priority(i))
  }

  /** The next rank to place (not removed: a rank whose group is full stays first in line). */
  next(): number {
    while (this.queue.length > 0) {
      const i = this.queue.peek()!
      if (this.siteOf[i] !== UNPINNED) {
        this.queue.pop()
        continue
      }
      const now = this.priority(i)
      if (now === -this.queue.peekValue()!) break
      // Its key is stale (site costs or free nodes changed): re-queue it at its current priority.
      this.queue.pop()
      this.queue.push(i, -now)
    }
    const n = this.siteOf.length
    while (
      this.untiedCursor < n &&
      (this.siteOf[this.byTotal[this.untiedCursor]!] !== UNPINNED ||
        this.tie[this.byTotal[this.untiedCursor]!]! > 0)
    )
      this.untiedCursor++
    const untied = this.untiedCursor < n ? this.byTotal[this.untiedCursor]! : -1
    if (this.queue.length === 0) return untied
    if (untied >= 0 && -this.queue.peekValue()! < 0) return untied
    return this.queue.peek()!
  }

  place(i: number, s: number): void {
    this.siteOf[i] = s
    this.free[s]!--
    this.placedCount++
    addNeighbourTerms(this.p, this.siteCost, i, s, 1)
    const nl = this.p.neighbours
    for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) {
      const j = nl.col[k]!
      if (this.siteOf[j] !== UNPINNED) continue
      this.tie[j]! += this.weights[k]!
      this.queue.push(j, -this.priority(j))
    }
  }

  /** Among `sites` with a free node, the one where rank i costs least (the first on ties); -1 when all are full. */
  cheapestSite(i: number, sites: readonly number[]): number {
    let best = -1
    let bestCost = Number.POSITIVE_INFINITY
    const row = i * this.p.sites
    for (const s of sites)
      if (this.free[s]! > 0 && this.siteCost[row + s]! < bestCost) {
        best = s
        bestCost = this.siteCost[row + s]!
      }
    return best
  }
}

const orderCache = new WeakMap<MappingProblem, Int32Array>()

/** Ranks by total tie weight, heaviest first; equal weights by rank, so plans are deterministic. Once per problem. */
function heaviestFirst(p: MappingProblem, weights: Float64Array): Int32Array {
  const cached = orderCache.get(p)
  if (cached) return cached
  const n = p.comm.processes
  const nl = p.neighbours
  const total = new Float64Array(n)
  for (let i = 0; i < n; i++)
    for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) total[i]! += weights[k]!
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => total[b]! - total[a]! || a - b)
  orderCache.set(p, order)
  return order
}
