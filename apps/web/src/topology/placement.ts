import {
  CreatePlan,
  type CreatePlanInput,
  DEFAULT_PLAN_AGGREGATION,
  PLAN_LIMITS,
  type PlanPlanner,
  type PlanProfile,
  type PlanResult,
  planPlanners,
  type Topology,
  topologyNodes,
} from '@codebook/shared'
import { countOf } from '../lib/format.ts'

/** What each built-in workload is, for the Placement panel's picker. */
export const PLAN_PATTERN_LABELS = {
  kmeans: 'K-means iteration (chain broadcast; k 1,000, d 128)',
  bt: 'NPB BT (near-diagonal stencil)',
  sp: 'NPB SP (near-diagonal stencil)',
  lu: 'NPB LU (wavefront stencil)',
  dnn: 'DNN parameter exchange',
} as const

/** Where the ranks go: the edited topology's own sites and nodes, or a built-in profile (the geo paper's EC2 or Azure regions). */
export type PlacementSites = 'topology' | PlanProfile

/** The Placement form as typed (strings from inputs). */
export interface PlacementForm {
  sites: PlacementSites
  pattern: keyof typeof PLAN_PATTERN_LABELS
  /** K-means only: how the iteration reduces (ring by default across sites). */
  aggregation: NonNullable<CreatePlanInput['aggregation']>
  processes: string
  constraintRatio: string
  seed: string
  planners: PlanPlanner[]
  /** Empty: no Monte Carlo search. */
  monteCarlo: string
}

/** The form's starting values: the issue's benchmark case at 64 ranks (4 sites × 16 nodes, ratio 0.2). */
export const PLACEMENT_FORM_DEFAULTS: PlacementForm = {
  sites: 'ec2-4',
  pattern: 'kmeans',
  aggregation: DEFAULT_PLAN_AGGREGATION,
  processes: '64',
  constraintRatio: '0.2',
  seed: '1',
  // Every planner, as the API's default: geo as published and geo-refined beside the baselines.
  planners: [...planPlanners],
  monteCarlo: '',
}

/**
 * The form's starting values on `topology`: its own sites when it has several with site links
 * (a plan on them can be used for a run on it), as many processes as it has nodes up to the
 * default 64; otherwise the EC2 profile (a one-site topology has nothing to place across sites).
 */
export function placementFormFor(topology: Topology): PlacementForm {
  const own = topologyPlanSites(topology)
  if (!own.ok || own.sites < 2) return PLACEMENT_FORM_DEFAULTS
  const processes = Math.min(Number(PLACEMENT_FORM_DEFAULTS.processes), own.nodes)
  return { ...PLACEMENT_FORM_DEFAULTS, sites: 'topology', processes: String(processes) }
}

/** Why every planner ties on a plan over one site (every rank is on it whatever the mapping), else null. */
export function oneSiteNote(sites: number): string | null {
  return sites === 1
    ? 'One site: every rank runs on it whatever the planner, so every mapping costs the same and no planner gains over random. Placement matters across sites: add sites with site links, or plan on a built-in profile.'
    : null
}

/** Whether a topology's sites can be planned on (the server prices site pairs from its site links). */
export function topologyPlanSites(
  topology: Topology,
): { ok: true; sites: number; nodes: number } | { ok: false; message: string } {
  const sites = topology.sites.length
  if (sites > 1 && !topology.siteLinks)
    return {
      ok: false,
      message: `its ${sites} sites have no site links (latency and bandwidth per site pair)`,
    }
  return { ok: true, sites, nodes: topologyNodes(topology).length }
}

/** A plan request: the form's, with the topology when the ranks go onto its own sites. */
export type PlacementBody = CreatePlanInput & { topology?: Topology }

/**
 * The request body of a form, or the field that is wrong and why (the server's limits, so a
 * refusal is shown at its field before anything is sent). `topology` is the one being edited.
 */
export function placementRequest(
  f: PlacementForm,
  topology?: Topology,
): { ok: true; body: PlacementBody } | { ok: false; field: keyof PlacementForm; message: string } {
  const processes = Number(f.processes)
  if (f.sites === 'topology') {
    const own = topology ? topologyPlanSites(topology) : { ok: false as const, message: 'no topology' }
    if (!own.ok)
      return { ok: false, field: 'sites', message: `this topology cannot be planned on: ${own.message}` }
    if (processes > own.nodes)
      return {
        ok: false,
        field: 'processes',
        message: `this topology has ${countOf(own.nodes, 'node')} (one process per node)`,
      }
  }
  if (f.pattern === 'kmeans' && processes > PLAN_LIMITS.maxKmeansProcesses)
    return {
      ok: false,
      field: 'processes',
      message: `the K-means workload is derived from its schedules: at most ${PLAN_LIMITS.maxKmeansProcesses} processes`,
    }
  const body: CreatePlanInput = {
    // With the topology's own sites the profile is unused (the server reads the topology's).
    profile: f.sites === 'topology' ? 'ec2-4' : f.sites,
    pattern: f.pattern,
    ...(f.pattern === 'kmeans' ? { aggregation: f.aggregation } : {}),
    processes: f.processes.trim() === '' ? Number.NaN : processes,
    constraintRatio: f.constraintRatio.trim() === '' ? Number.NaN : Number(f.constraintRatio),
    seed: f.seed.trim() === '' ? Number.NaN : Number(f.seed),
    planners: f.planners,
    ...(f.monteCarlo.trim() !== '' ? { monteCarlo: Number(f.monteCarlo) } : {}),
  }
  const parsed = CreatePlan.safeParse(body)
  if (parsed.success) return { ok: true, body: f.sites === 'topology' ? { ...body, topology } : body }
  const issue = parsed.error.issues[0]!
  const field = String(issue.path[0] ?? 'processes') as keyof PlacementForm
  return { ok: false, field, message: issue.message }
}

/** Gain of `cost` over the random mapping's, as a fraction (null without a random plan). */
export function gainOverRandom(result: PlanResult, cost: number): number | null {
  const random = result.plans.find((p) => p.algorithm === 'random')
  return random && random.cost > 0 ? 1 - cost / random.cost : null
}

/** One site of a mapping: its nodes, the ranks placed there, those pinned there. */
export interface SitePlacement {
  site: string
  nodes: number
  ranks: number[]
  pinned: number
}

/** Planner `algorithm`'s mapping gathered per site, ranks in increasing order. */
export function sitePlacements(result: PlanResult, algorithm: PlanPlanner): SitePlacement[] {
  const plan = result.plans.find((p) => p.algorithm === algorithm) ?? result.plans[0]!
  const sites = result.sites.map((site, s) => ({
    site,
    nodes: result.capacity[s] ?? 0,
    ranks: [] as number[],
    pinned: 0,
  }))
  plan.siteOf.forEach((s, rank) => {
    const site = sites[s]!
    site.ranks.push(rank)
    if (result.constraints[rank] === s) site.pinned++
  })
  return sites
}

/** Sorted ranks as ranges, `0–3, 8, 10–11`; past `maxParts` parts, `… (+N more)`. */
export function rankRanges(ranks: readonly number[], maxParts = 12): string {
  const parts: string[] = []
  let i = 0
  while (i < ranks.length) {
    let j = i
    while (j + 1 < ranks.length && ranks[j + 1] === ranks[j]! + 1) j++
    parts.push(i === j ? `${ranks[i]}` : `${ranks[i]}–${ranks[j]}`)
    i = j + 1
  }
  if (parts.length <= maxParts) return parts.join(', ')
  return `${parts.slice(0, maxParts).join(', ')}, … (+${parts.length - maxParts} more)`
}
