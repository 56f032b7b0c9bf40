import { readFile } from 'node:fs/promises'
import { planNodeNames as sharedPlanNodeNames, type Topology } from '@codebook/shared'
import { z } from 'zod'
import { aggregationModes } from '../collectives/regroup/regroup.ts'
import { UsageError } from '../errors.ts'
import { mappingPlanners } from './plan-mapping.ts'

/** The part of a `codebook plan mapping --out` file a run needs (the rest is ignored). */
const planFileSchema = z.object({
  sites: z.array(z.string()).min(1),
  capacity: z.array(z.number().int().nonnegative()),
  processes: z.number().int().positive(),
  /** A K-means plan's aggregation (what it priced; plans written before it have none). */
  aggregation: z.enum(aggregationModes).optional(),
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
 * Node name per worker from a plan ({@link sharedPlanNodeNames}: plan sites matched to the
 * topology's by name, else by position; default planner: the cheapest).
 * @throws UsageError `PLANNER_NOT_IN_PLAN`, `PLAN_TOO_SMALL` (fewer ranks than workers) or
 * `PLAN_TOPOLOGY_MISMATCH` (a plan site the topology lacks, or has too few nodes for).
 */
export function planNodeNames(
  plan: PlanFile,
  topology: Topology,
  workers: number,
  planner?: string,
): string[] {
  const r = sharedPlanNodeNames(plan, topology, workers, planner)
  if (!r.ok) throw new UsageError(r.code, r.message)
  return r.names
}
