import type { Rng } from '../../random/rng.ts'
import { type CommMatrix, CommMatrixBuilder } from '../comm-matrix.ts'
import { type MappingProblem, mappingCost, mappingProblem, UNPINNED } from '../problem.ts'
import type { SiteProfile } from '../site-profile.ts'

/**
 * The cheapest mapping by exhaustive search (DFS over rank → site, honouring pins and
 * capacities), priced by a direct double loop over sends written here independently of
 * `mappingCost`: the oracle Algorithm 1 is compared with. M^N leaves: keep N ≤ 10.
 */
export function exhaustiveOptimum(p: MappingProblem): { cost: number; siteOf: Int32Array } {
  const n = p.comm.processes
  const m = p.sites
  const siteOf = new Int32Array(n)
  const used = new Int32Array(m)
  let best = Number.POSITIVE_INFINITY
  let bestSiteOf = new Int32Array(n)
  const price = () => {
    let c = 0
    for (let i = 0; i < n; i++)
      for (let k = p.comm.rowStart[i]!; k < p.comm.rowStart[i + 1]!; k++) {
        const s = siteOf[i]!
        const t = siteOf[p.comm.col[k]!]!
        c += p.comm.messages[k]! * p.latency[s * m + t]! + p.comm.volume[k]! * p.inverseBandwidth[s * m + t]!
      }
    return c
  }
  const visit = (i: number) => {
    if (i === n) {
      const c = price()
      if (c < best) {
        best = c
        bestSiteOf = siteOf.slice()
      }
      return
    }
    for (let s = 0; s < m; s++) {
      if (p.pinned[i] !== UNPINNED && p.pinned[i] !== s) continue
      if (used[s]! >= p.capacity[s]!) continue
      used[s]!++
      siteOf[i] = s
      visit(i + 1)
      used[s]!--
    }
  }
  visit(0)
  return { cost: best, siteOf: bestSiteOf }
}

/** A random sparse matrix: each ordered pair sends with probability `density`, random bytes and messages. */
export function randomMatrix(n: number, density: number, rng: Rng): CommMatrix {
  const b = new CommMatrixBuilder(n)
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      if (i !== j && rng.next() < density) b.add(i, j, Math.floor(rng.next() * 1e8), 1 + rng.int(20))
  return b.build()
}

/** A random profile of M sites: asymmetric latencies and bandwidths, intra-site links the fastest. */
export function randomProfile(m: number, nodes: number[], rng: Rng): SiteProfile {
  const latency = Array.from({ length: m }, (_, s) =>
    Array.from({ length: m }, (_, t) => (s === t ? 1e-4 : 0.01 + rng.next() * 0.2)),
  )
  const bandwidth = Array.from({ length: m }, (_, s) =>
    Array.from({ length: m }, (_, t) => (s === t ? 1e9 : 2e7 + rng.next() * 3e8)),
  )
  const coordinates = Array.from({ length: m }, () => [rng.next(), rng.next()])
  return {
    name: 'random',
    sites: Array.from({ length: m }, (_, s) => `s${s}`),
    latency,
    bandwidth,
    coordinates,
    nodes,
  }
}

/** A random instance with random pins (within capacities). */
export function randomInstance(rng: Rng, n: number, m: number, pinRatio: number): MappingProblem {
  const nodes = Array.from({ length: m }, () => 1)
  for (let extra = n - m + rng.int(3); extra > 0; extra--) nodes[rng.int(m)]!++
  const profile = randomProfile(m, nodes, rng)
  const matrix = randomMatrix(n, 0.2 + rng.next() * 0.6, rng)
  const left = [...nodes]
  const pins = Array.from({ length: n }, () => {
    if (rng.next() >= pinRatio) return UNPINNED
    const open = left.flatMap((f, s) => (f > 0 ? [s] : []))
    const s = open[rng.int(open.length)]!
    left[s]!--
    return s
  })
  return mappingProblem(matrix, profile, pins)
}

/** Two sites `x`, `y` with symmetric links: intra-site latency/bandwidth on the diagonal, cross-site off it. */
export function twoSiteProfile(
  intra: { latency: number; bandwidth: number },
  cross: { latency: number; bandwidth: number },
  nodes: number[],
): SiteProfile {
  const at = (key: 'latency' | 'bandwidth') => [
    [intra[key], cross[key]],
    [cross[key], intra[key]],
  ]
  return {
    name: 'pair',
    sites: ['x', 'y'],
    latency: at('latency'),
    bandwidth: at('bandwidth'),
    coordinates: [[0], [1]],
    nodes,
  }
}

/**
 * The cheapest mapping one step away from `siteOf` (an exchange of two unpinned ranks on
 * different sites, or a move of one to a free node), by brute force: a local search has ended
 * at a local optimum when this is not below its cost. Infinity when no step exists.
 */
export function cheapestOneStepAway(p: MappingProblem, siteOf: Int32Array): number {
  const n = p.comm.processes
  const used = new Array<number>(p.sites).fill(0)
  for (const s of siteOf) used[s]!++
  const free = (i: number) => p.pinned[i] === UNPINNED
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < n; i++) {
    if (!free(i)) continue
    for (let j = i + 1; j < n; j++) {
      if (!free(j) || siteOf[i] === siteOf[j]) continue
      const swapped = siteOf.slice()
      ;[swapped[i], swapped[j]] = [siteOf[j]!, siteOf[i]!]
      best = Math.min(best, mappingCost(p, swapped))
    }
    for (let s = 0; s < p.sites; s++) {
      if (s === siteOf[i] || used[s]! >= p.capacity[s]!) continue
      const moved = siteOf.slice()
      moved[i] = s
      best = Math.min(best, mappingCost(p, moved))
    }
  }
  return best
}
