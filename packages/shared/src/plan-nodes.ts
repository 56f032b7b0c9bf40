import { type Topology, topologyNodes } from './topology.ts'

/** The parts of a placement plan (a `codebook plan mapping --out` file, or `PlanResult`) that place ranks. */
export interface PlacementPlan {
  sites: readonly string[]
  capacity: readonly number[]
  plans: readonly { algorithm: string; cost: number; siteOf: readonly number[]; nodeOf: readonly number[] }[]
}

/** Node name per worker, or why the plan does not fit the topology. */
export type PlanNodesResult =
  | { ok: true; planner: string; names: string[] }
  | { ok: false; code: 'PLANNER_NOT_IN_PLAN' | 'PLAN_TOO_SMALL' | 'PLAN_TOPOLOGY_MISMATCH'; message: string }

/**
 * Node name per worker from a plan: worker i runs where the chosen planner put rank i. A plan
 * numbers the nodes of its profile's sites; they are matched to the topology's sites by name
 * (by position when no name matches at all), and the j-th node of plan site s is the j-th node,
 * in topology order, of the matching topology site. `planner` defaults to the cheapest plan.
 * Shared so the CLI (`codebook kmeans --mapping`) and the web ("Use for a run") place alike.
 */
export function planNodeNames(
  plan: PlacementPlan,
  topology: Topology,
  workers: number,
  planner?: string,
): PlanNodesResult {
  const chosen =
    planner === undefined
      ? plan.plans.reduce((best, p) => (p.cost < best.cost ? p : best))
      : plan.plans.find((p) => p.algorithm === planner)
  if (!chosen)
    return {
      ok: false,
      code: 'PLANNER_NOT_IN_PLAN',
      message: `the plan has no '${planner}' mapping (it has ${plan.plans.map((p) => p.algorithm).join(', ')})`,
    }
  if (chosen.nodeOf.length < workers)
    return {
      ok: false,
      code: 'PLAN_TOO_SMALL',
      message: `the plan places ${chosen.nodeOf.length} ranks, ${workers} workers were asked for`,
    }
  const nodesBySite = new Map<string, string[]>()
  for (const n of topologyNodes(topology)) {
    const names = nodesBySite.get(n.site) ?? []
    names.push(n.node.name)
    nodesBySite.set(n.site, names)
  }
  const byName = plan.sites.some((s) => nodesBySite.has(s))
  const firstNode = plan.capacity.map((_, s) => plan.capacity.slice(0, s).reduce((a, b) => a + b, 0))
  const names: string[] = []
  for (let rank = 0; rank < workers; rank++) {
    const site = chosen.siteOf[rank]!
    const siteName = byName ? plan.sites[site] : topology.sites[site]?.name
    const siteNodes = siteName === undefined ? undefined : nodesBySite.get(siteName)
    const local = chosen.nodeOf[rank]! - (firstNode[site] ?? 0)
    const name = siteNodes?.[local]
    if (name === undefined)
      return {
        ok: false,
        code: 'PLAN_TOPOLOGY_MISMATCH',
        message: `rank ${rank} is on node ${local} of plan site '${plan.sites[site]}', which topology '${topology.name}' ${siteNodes ? `has only ${siteNodes.length} nodes at` : 'has no site for'}`,
      }
    names.push(name)
  }
  return { ok: true, planner: chosen.algorithm, names }
}
