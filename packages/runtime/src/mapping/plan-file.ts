import { readFile } from 'node:fs/promises'
import { type Topology, topologyNodes } from '@codebook/shared'
import { z } from 'zod'
import { UsageError } from '../errors.ts'
import { mappingPlanners } from './plan-mapping.ts'

/** The part of a `codebook plan mapping --out` file a run needs (the rest is ignored). */
const planFileSchema = z.object({
  sites: z.array(z.string()).min(1),
  capacity: z.array(z.number().int().nonnegative()),
  processes: z.number().int().positive(),
  plans: z
    .array(
      z.object({
        algorithm: z.enum(mappingPlanners),
        cost: z.number(),
        siteOf: z.array(z.number().int().nonnegative()),
        nodeOf: z.array(z.number().int().nonnegative()),
      }),
    )
    .min(1),
})

/** A plan file as read by {@link readPlanFile}. */
export type PlanFile = z.infer<typeof planFileSchema>

/**
 * Reads a plan written by `codebook plan mapping --out`.
 * @throws UsageError `PLAN_UNREADABLE` (missing, not JSON) or `PLAN_INVALID` (wrong shape, with the path).
 */
export async function readPlanFile(file: string): Promise<PlanFile> {
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(file, 'utf8'))
  } catch (e) {
    throw new UsageError('PLAN_UNREADABLE', `${file}: ${(e as Error).message}`)
  }
  const parsed = planFileSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new UsageError('PLAN_INVALID', `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`)
  }
  return parsed.data
}

/**
 * Node name per worker from a plan: worker i runs where the chosen planner put rank i. A plan
 * numbers the nodes of its profile's sites; they are matched to the topology's sites by name
 * (by position when no name matches at all), and the j-th node of plan site s is the j-th node,
 * in topology order, of the matching topology site. `planner` defaults to the cheapest plan.
 * @throws UsageError `PLANNER_NOT_IN_PLAN`, `PLAN_TOO_SMALL` (fewer ranks than workers) or
 * `PLAN_TOPOLOGY_MISMATCH` (a plan site the topology lacks, or has too few nodes for).
 */
export function planNodeNames(
  plan: PlanFile,
  topology: Topology,
  workers: number,
  planner?: string,
): string[] {
  const chosen =
    planner === undefined
      ? plan.plans.reduce((best, p) => (p.cost < best.cost ? p : best))
      : plan.plans.find((p) => p.algorithm === planner)
  if (!chosen)
    throw new UsageError(
      'PLANNER_NOT_IN_PLAN',
      `the plan has no '${planner}' mapping (it has ${plan.plans.map((p) => p.algorithm).join(', ')})`,
    )
  if (plan.processes < workers || chosen.nodeOf.length < workers)
    throw new UsageError(
      'PLAN_TOO_SMALL',
      `the plan places ${plan.processes} ranks, ${workers} workers were asked for`,
    )
  const nodesBySite = new Map<string, string[]>()
  for (const n of topologyNodes(topology)) {
    const names = nodesBySite.get(n.site) ?? []
    names.push(n.node.name)
    nodesBySite.set(n.site, names)
  }
  const byName = plan.sites.some((s) => nodesBySite.has(s))
  const topologySites = topology.sites.map((s) => s.name)
  const firstNode = plan.capacity.map((_, s) => plan.capacity.slice(0, s).reduce((a, b) => a + b, 0))
  return chosen.nodeOf.slice(0, workers).map((node, rank) => {
    const site = chosen.siteOf[rank]!
    const siteName = byName ? plan.sites[site] : topologySites[site]
    const names = siteName === undefined ? undefined : nodesBySite.get(siteName)
    const local = node - (firstNode[site] ?? 0)
    const name = names?.[local]
    if (name === undefined)
      throw new UsageError(
        'PLAN_TOPOLOGY_MISMATCH',
        `rank ${rank} is on node ${local} of plan site '${plan.sites[site]}', which topology '${topology.name}' ${names ? `has only ${names.length} nodes at` : 'has no site for'}`,
      )
    return name
  })
}
