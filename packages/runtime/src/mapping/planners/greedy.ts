import { commTotals } from '../comm-matrix.ts'
import { PlacementState } from '../placement-state.ts'
import { type MappingProblem, UNPINNED } from '../problem.ts'
import { pairWeights } from '../site-terms.ts'

/**
 * Hoefler & Snir's Greedy mapping ("Generic topology mapping strategies for large-scale parallel
 * architectures", ICS 2011) on sites: pinned ranks first; then repeatedly the unplaced rank most
 * tied to the placed ones (the heaviest rank when none is tied) goes to the free node closest to
 * its heaviest placed neighbour — the same site if it has a free node, else the site at the
 * smallest distance from it. A rank with no placed neighbour starts at the largest site. The
 * distance of a link is the α-β time of one mean-sized message. Unlike Algorithm 1 it never
 * compares alternatives: one pass, no group orders.
 */
export function planGreedy(p: MappingProblem): Int32Array {
  const m = p.sites
  const state = new PlacementState(p)
  const weights = pairWeights(p)
  const nl = p.neighbours
  const totals = commTotals(p.comm)
  const bytes = totals.messages > 0 ? totals.bytes / totals.messages : 1
  const distance = (s: number, t: number) => p.latency[s * m + t]! + bytes * p.inverseBandwidth[s * m + t]!
  // Sites by distance from each site, itself first.
  const nearest = Array.from({ length: m }, (_, s) =>
    Array.from({ length: m }, (_, t) => t).sort((a, b) =>
      a === s ? -1 : b === s ? 1 : distance(s, a) - distance(s, b) || a - b,
    ),
  )
  const largest = [...p.capacity.keys()].sort((a, b) => p.capacity[b]! - p.capacity[a]! || a - b)[0]!
  while (!state.done) {
    const i = state.next()
    let anchor = largest
    let heaviest = 0
    for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) {
      const s = state.siteOf[nl.col[k]!]!
      if (s !== UNPINNED && weights[k]! > heaviest) {
        heaviest = weights[k]!
        anchor = s
      }
    }
    state.place(i, nearest[anchor]!.find((t) => state.free[t]! > 0)!)
  }
  return state.siteOf
}
