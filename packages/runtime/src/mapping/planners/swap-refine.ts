import { type MappingProblem, mappingCost, UNPINNED } from '../problem.ts'
import { mappingTable, pairCost } from '../site-terms.ts'

/** Bounds of {@link refineBySwaps}. */
export interface SwapRefineOptions {
  /** Sweeps over all ranks at most (default 50). */
  maxPasses?: number
  /** Stop after this many ms; the mapping so far is kept (default 20,000). */
  maxMs?: number
  /** Exchange partners tried per rank and site besides its neighbours (default 8). */
  partners?: number
  now?: () => number
}

/** What the refinement did. */
export interface SwapRefineResult {
  siteOf: Int32Array
  cost: number
  passes: number
  /** Exchanges and single moves made. */
  steps: number
  /** The time bound ended the sweeps before a pass without improvement. */
  truncated: boolean
}

/**
 * Descends from a mapping by pairwise exchanges of two unpinned ranks on different sites (and
 * moves of one rank to a free node), taking a step only when it lowers the α-β cost, until a
 * whole sweep finds none or a bound is reached. Pins are never moved and every step keeps each
 * site's count, so constraints and capacities hold; the cost never rises (the start is returned
 * if rounding ever said otherwise).
 *
 * Unlike MPIPP's Kernighan–Lin passes (O(N²) pairs per step), each rank only tries, per other
 * site, its neighbours there and the `partners` ranks there that gain most from moving to its
 * site (lists rebuilt each sweep): O(N · M · (partners + degree)) a sweep, so 8,192 ranks refine
 * in seconds. Every step is priced exactly against the current placement.
 */
export function refineBySwaps(
  p: MappingProblem,
  start: ArrayLike<number>,
  o: SwapRefineOptions = {},
): SwapRefineResult {
  const now = o.now ?? Date.now
  const deadline = now() + (o.maxMs ?? 20_000)
  const maxPasses = o.maxPasses ?? 50
  const partners = o.partners ?? 8
  const n = p.comm.processes
  const m = p.sites
  const nl = p.neighbours
  const siteOf = Int32Array.from(start)
  const startCost = mappingCost(p, siteOf)
  const { table, free, move } = mappingTable(p, siteOf)
  const movable = Int32Array.from({ length: n }, (_, i) => i).filter((i) => p.pinned[i] === UNPINNED)
  // Steps below this are rounding, not gains (keeps the descent finite).
  const epsilon = 1e-12 * Math.max(startCost, Number.MIN_VALUE)
  // corr[j]: the pair term of exchanging the current rank with neighbour j (scratch).
  const corr = new Float64Array(n)
  const isNeighbour = new Uint8Array(n)
  let passes = 0
  let steps = 0
  let truncated = false
  while (passes < maxPasses) {
    if (now() > deadline) {
      truncated = true
      break
    }
    passes++
    const lists = partnerLists(siteOf, movable, table, m, partners)
    let improved = false
    for (const i of movable) {
      const a = siteOf[i]!
      const rowI = i * m
      for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) {
        const j = nl.col[k]!
        const b = siteOf[j]!
        isNeighbour[j] = 1
        corr[j] =
          b === a
            ? 0
            : pairCost(p, k, a, b) + pairCost(p, k, b, a) - pairCost(p, k, a, a) - pairCost(p, k, b, b)
      }
      let bestDelta = -epsilon
      let bestJ = -1
      let bestTo = -1
      const tryExchange = (j: number, b: number) => {
        if (j === i || siteOf[j] !== b || p.pinned[j] !== UNPINNED) return
        const d =
          table[rowI + b]! -
          table[rowI + a]! +
          table[j * m + a]! -
          table[j * m + b]! +
          (isNeighbour[j] ? corr[j]! : 0)
        if (d < bestDelta) [bestDelta, bestJ, bestTo] = [d, j, b]
      }
      for (let b = 0; b < m; b++) {
        if (b === a) continue
        if (free[b]! > 0) {
          const d = table[rowI + b]! - table[rowI + a]!
          if (d < bestDelta) [bestDelta, bestJ, bestTo] = [d, -1, b]
        }
        for (const j of lists[b * m + a]!) tryExchange(j, b)
      }
      for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) {
        const j = nl.col[k]!
        if (siteOf[j] !== a) tryExchange(j, siteOf[j]!)
      }
      for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) isNeighbour[nl.col[k]!] = 0
      if (bestTo < 0) continue
      move(i, bestTo)
      if (bestJ >= 0) move(bestJ, a)
      steps++
      improved = true
    }
    if (!improved) break
  }
  const cost = mappingCost(p, siteOf)
  if (!(cost <= startCost))
    return { siteOf: Int32Array.from(start), cost: startCost, passes, steps: 0, truncated }
  return { siteOf, cost, passes, steps, truncated }
}

/**
 * For each site pair (b, a), the `count` unpinned ranks at b that would gain most from running
 * at a (smallest table[j, a] − table[j, b]): the exchange partners a rank at a tries first.
 */
function partnerLists(
  siteOf: Int32Array,
  movable: Int32Array,
  table: Float64Array,
  m: number,
  count: number,
): number[][] {
  const lists: number[][] = Array.from({ length: m * m }, () => [])
  if (count <= 0) return lists
  for (let b = 0; b < m; b++) {
    const here = Array.from(movable).filter((j) => siteOf[j] === b)
    for (let a = 0; a < m; a++) {
      if (a === b) continue
      const key = (j: number) => table[j * m + a]! - table[j * m + b]!
      lists[b * m + a] = here
        .map((j) => [key(j), j] as const)
        .sort((x, y) => x[0] - y[0] || x[1] - y[1])
        .slice(0, count)
        .map(([, j]) => j)
    }
  }
  return lists
}
