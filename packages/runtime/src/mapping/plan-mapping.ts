import { performance } from 'node:perf_hooks'
import { UsageError } from '../errors.ts'
import { createRng } from '../random/rng.ts'
import type { CommMatrix } from './comm-matrix.ts'
import { type PatternOptions, patternMatrix } from './patterns.ts'
import { planGeo } from './planners/geo.ts'
import { type GeoRefinedOptions, planGeoRefined } from './planners/geo-refined.ts'
import { planGreedy } from './planners/greedy.ts'
import { fractionBelow, monteCarloSearch } from './planners/monte-carlo.ts'
import { type MpippOptions, planMpipp } from './planners/mpipp.ts'
import { planRandom } from './planners/random.ts'
import { checkMapping, mappingCost, mappingProblem, nodesOf, randomConstraints, UNPINNED } from './problem.ts'
import { builtInProfile, type SiteProfile } from './site-profile.ts'

/** The planners, by the names the CLI and the JSON lines use. */
export const mappingPlanners = ['geo', 'geo-refined', 'greedy', 'mpipp', 'random'] as const
export type MappingPlanner = (typeof mappingPlanners)[number]

/**
 * Each planner's random stream (offset from the seed), fixed by name so a plan does not depend
 * on which other planners ran; geo-refined shares geo's, so it starts from geo's own grouping.
 */
const plannerStream: Record<MappingPlanner, number> = {
  geo: 0,
  'geo-refined': 0,
  greedy: 1,
  mpipp: 2,
  random: 3,
}

/** What to plan: plain data (a server can check it with zod), plus an optional prebuilt matrix. */
export interface PlanMappingOptions {
  /** A built-in profile name (`ec2-4`) or a profile. */
  profile: string | SiteProfile
  /** A built-in pattern name, or a label for `matrix`. */
  pattern: string
  /** Ranks of a built-in pattern (ignored with `matrix`). */
  processes?: number
  patternOptions?: PatternOptions
  /** A matrix to map instead of a built-in pattern (e.g. read from .npy). */
  matrix?: CommMatrix
  /** Nodes per site when the profile leaves it open; default: the processes spread evenly. */
  nodesPerSite?: number
  /** Site index per rank, −1 = free. Overrides `constraintRatio`. */
  constraints?: number[]
  /** Share of ranks pinned to a random site (seeded). Default 0. */
  constraintRatio?: number
  /** Seeds the constraints, the random planners and K-means's Forgy start. Default 1. */
  seed?: number
  /** Planners to run, in order; default all. */
  planners?: MappingPlanner[]
  /** Random mappings of the Monte Carlo search (0: none). */
  monteCarlo?: number
  /** Keep every Monte Carlo sample's cost (for CDFs and best-of-K curves). */
  keepSamples?: boolean
  mpipp?: MpippOptions
  /** Time bound of geo-refined's refinement (default 20 s). */
  geoRefined?: GeoRefinedOptions
}

/** One planner's plan. */
export interface PlannedMapping {
  algorithm: MappingPlanner
  /** Modelled communication time of one step, seconds. */
  cost: number
  planMs: number
  /** Site index per rank. */
  siteOf: number[]
  /** Node per rank: site s's nodes are numbered after the nodes of sites 0 … s − 1. */
  nodeOf: number[]
  /** MPIPP and geo-refined: the time bound cut the search short. */
  truncated?: boolean
}

/** The Monte Carlo search's summary. */
export interface MonteCarloSummary {
  samples: number
  best: number
  mean: number
  /** Share of samples strictly cheaper than geo (null when geo was not run). */
  fractionBetterThanGeo: number | null
  costs?: number[]
}

/** Everything {@link planMapping} decided. */
export interface MappingPlanResult {
  profile: string
  sites: string[]
  /** Nodes per site used. */
  capacity: number[]
  pattern: string
  processes: number
  /** Pinned site per rank, −1 = free. */
  constraints: number[]
  plans: PlannedMapping[]
  monteCarlo?: MonteCarloSummary
}

/**
 * Plans where each rank runs: builds the communication matrix and the site profile, draws the
 * constraints, runs each planner (timed) and, when asked, the Monte Carlo search. Pure apart
 * from the clock: the same options give the same mappings. Every plan is checked to honour the
 * pins and the site capacities.
 */
export function planMapping(o: PlanMappingOptions): MappingPlanResult {
  const seed = o.seed ?? 1
  const profile = typeof o.profile === 'string' ? builtInProfile(o.profile) : o.profile
  if (o.processes === undefined && !o.matrix)
    throw new UsageError('BAD_PROCESSES', 'give the number of processes for a built-in pattern')
  const matrix = o.matrix ?? patternMatrix(o.pattern, o.processes!, o.patternOptions)
  const n = matrix.processes
  const sized: SiteProfile =
    o.nodesPerSite !== undefined ? { ...profile, nodes: profile.sites.map(() => o.nodesPerSite!) } : profile
  const free = mappingProblem(matrix, sized)
  const pins =
    o.constraints ?? Array.from(randomConstraints(n, free.capacity, o.constraintRatio ?? 0, createRng(seed)))
  const p = mappingProblem(matrix, sized, pins)
  const plans: PlannedMapping[] = []
  for (const algorithm of o.planners ?? mappingPlanners) {
    if (!mappingPlanners.includes(algorithm))
      throw new UsageError(
        'PLANNER_UNKNOWN',
        `unknown planner "${algorithm}" (${mappingPlanners.join(', ')})`,
      )
    // Each planner draws from its own stream, so a plan does not depend on which others ran.
    const streamOf = () => createRng(seed * 7919 + plannerStream[algorithm] + 1)
    const rng = streamOf()
    const start = performance.now()
    let truncated: boolean | undefined
    let siteOf: Int32Array
    if (algorithm === 'geo') siteOf = planGeo(p, sized.coordinates, rng).siteOf
    else if (algorithm === 'geo-refined') {
      const r = planGeoRefined(p, sized.coordinates, streamOf, o.geoRefined)
      siteOf = r.siteOf
      truncated = r.truncated
    } else if (algorithm === 'greedy') siteOf = planGreedy(p)
    else if (algorithm === 'mpipp') {
      const r = planMpipp(p, rng, o.mpipp)
      siteOf = r.siteOf
      truncated = r.truncated
    } else siteOf = planRandom(p, rng)
    const planMs = performance.now() - start
    checkMapping(p, siteOf)
    plans.push({
      algorithm,
      cost: mappingCost(p, siteOf),
      planMs,
      siteOf: Array.from(siteOf),
      nodeOf: Array.from(nodesOf(p, siteOf)),
      ...(truncated !== undefined ? { truncated } : {}),
    })
  }
  const result: MappingPlanResult = {
    profile: profile.name,
    sites: profile.sites,
    capacity: Array.from(p.capacity),
    pattern: o.pattern,
    processes: n,
    constraints: Array.from(p.pinned, (s) => (s === UNPINNED ? -1 : s)),
    plans,
  }
  if (o.monteCarlo && o.monteCarlo > 0) {
    const mc = monteCarloSearch(p, o.monteCarlo, createRng(seed * 7919 + 1000))
    const geo = plans.find((x) => x.algorithm === 'geo')
    result.monteCarlo = {
      samples: mc.samples,
      best: mc.best,
      mean: mc.costs.reduce((a, b) => a + b, 0) / mc.samples,
      fractionBetterThanGeo: geo ? fractionBelow(mc.costs, geo.cost) : null,
      ...(o.keepSamples ? { costs: Array.from(mc.costs) } : {}),
    }
  }
  return result
}
