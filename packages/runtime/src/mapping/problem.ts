import { UsageError } from '../errors.ts'
import type { Rng } from '../random/rng.ts'
import { type CommMatrix, type NeighbourLists, neighbourLists } from './comm-matrix.ts'
import { type SiteProfile, validateProfile } from './site-profile.ts'

/** Marks a rank no data constraint pins. */
export const UNPINNED = -1

/**
 * A mapping instance in the planners' flat form: M sites, per-site capacities, the site-pair
 * latency and inverse bandwidth as row-major M × M typed arrays, and `pinned[i]` = the site
 * rank i must run at, or {@link UNPINNED}.
 */
export interface MappingProblem {
  comm: CommMatrix
  neighbours: NeighbourLists
  sites: number
  capacity: Int32Array
  latency: Float64Array
  inverseBandwidth: Float64Array
  pinned: Int32Array
}

/**
 * Builds a {@link MappingProblem}. Nodes per site come from the profile or spread the ranks
 * evenly (the first sites take one more). Coded errors: `BAD_PROFILE`, `MAPPING_CAPACITY` (more
 * ranks than nodes, or more ranks pinned to a site than it has nodes), `BAD_CONSTRAINT`.
 */
export function mappingProblem(
  comm: CommMatrix,
  profile: SiteProfile,
  pinned?: ArrayLike<number>,
): MappingProblem {
  validateProfile(profile)
  const m = profile.sites.length
  const n = comm.processes
  const capacity = Int32Array.from(
    profile.nodes ?? Array.from({ length: m }, (_, s) => Math.floor(n / m) + (s < n % m ? 1 : 0)),
  )
  const total = capacity.reduce((a, b) => a + b, 0)
  if (total < n)
    throw new UsageError(
      'MAPPING_CAPACITY',
      `${n} processes but profile "${profile.name}" has only ${total} nodes`,
    )
  const pins = new Int32Array(n).fill(UNPINNED)
  if (pinned) {
    if (pinned.length !== n)
      throw new UsageError('BAD_CONSTRAINT', `${pinned.length} constraints for ${n} processes`)
    const used = new Int32Array(m)
    for (let i = 0; i < n; i++) {
      const s = pinned[i]!
      if (s === UNPINNED) continue
      if (!Number.isInteger(s) || s < 0 || s >= m)
        throw new UsageError('BAD_CONSTRAINT', `process ${i} is pinned to site ${s}, not one of 0 … ${m - 1}`)
      if (++used[s]! > capacity[s]!)
        throw new UsageError(
          'MAPPING_CAPACITY',
          `more processes pinned to site ${profile.sites[s]} than its ${capacity[s]} nodes`,
        )
      pins[i] = s
    }
  }
  return {
    comm,
    neighbours: neighbourLists(comm),
    sites: m,
    capacity,
    latency: Float64Array.from(profile.latency.flat()),
    inverseBandwidth: Float64Array.from(profile.bandwidth.flat(), (b) => 1 / b),
    pinned: pins,
  }
}

/**
 * Pins `round(ratio · N)` ranks, drawn uniformly, each to a uniformly drawn site that still has
 * a free node: the paper's data constraints (a rank must run where its data lives).
 */
export function randomConstraints(
  processes: number,
  capacity: ArrayLike<number>,
  ratio: number,
  rng: Rng,
): Int32Array {
  if (!(ratio >= 0 && ratio <= 1))
    throw new UsageError('BAD_CONSTRAINT', `constraint ratio must be in [0, 1], got ${ratio}`)
  const pins = new Int32Array(processes).fill(UNPINNED)
  const order = shuffled(processes, rng)
  const left = Array.from(capacity)
  const count = Math.round(ratio * processes)
  for (let c = 0; c < count; c++) {
    const open = left.flatMap((free, s) => (free > 0 ? [s] : []))
    const s = open[rng.int(open.length)]!
    left[s]!--
    pins[order[c]!] = s
  }
  return pins
}

/** 0 … n − 1 in a uniformly random order (Fisher–Yates). */
export function shuffled(n: number, rng: Rng): Int32Array {
  const a = new Int32Array(n)
  for (let i = 0; i < n; i++) a[i] = i
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    const t = a[i]!
    a[i] = a[j]!
    a[j] = t
  }
  return a
}

/**
 * The α-β communication cost of a mapping (rank → site): Σ over sends i → j of
 * A_ij · L(s_i, s_j) + C_ij / B(s_i, s_j), in seconds. O(non-zeros).
 */
export function mappingCost(p: MappingProblem, siteOf: ArrayLike<number>): number {
  const { rowStart, col, volume, messages } = p.comm
  const m = p.sites
  let cost = 0
  for (let i = 0; i < p.comm.processes; i++) {
    const base = siteOf[i]! * m
    for (let k = rowStart[i]!; k < rowStart[i + 1]!; k++) {
      const pair = base + siteOf[col[k]!]!
      cost += messages[k]! * p.latency[pair]! + volume[k]! * p.inverseBandwidth[pair]!
    }
  }
  return cost
}

/** Throws unless `siteOf` honours every pin and no site holds more ranks than its capacity (a planner bug otherwise). */
export function checkMapping(p: MappingProblem, siteOf: ArrayLike<number>): void {
  const used = new Int32Array(p.sites)
  for (let i = 0; i < p.comm.processes; i++) {
    const s = siteOf[i]!
    if (!(s >= 0 && s < p.sites)) throw new Error(`process ${i} has no site (${s})`)
    if (p.pinned[i] !== UNPINNED && p.pinned[i] !== s)
      throw new Error(`process ${i} is pinned to site ${p.pinned[i]} but mapped to ${s}`)
    used[s]!++
  }
  for (let s = 0; s < p.sites; s++)
    if (used[s]! > p.capacity[s]!)
      throw new Error(`site ${s} holds ${used[s]} processes, capacity ${p.capacity[s]}`)
}

/**
 * Rank → node from rank → site: a site's nodes are numbered consecutively after the previous
 * sites' (site s's first node is Σ_{t<s} capacity[t]), filled in rank order.
 */
export function nodesOf(p: MappingProblem, siteOf: ArrayLike<number>): Int32Array {
  const next = new Int32Array(p.sites)
  for (let s = 1; s < p.sites; s++) next[s] = next[s - 1]! + p.capacity[s - 1]!
  return Int32Array.from({ length: p.comm.processes }, (_, i) => next[siteOf[i]!]!++)
}
