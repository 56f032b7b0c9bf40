import { type MappingPlanResult, planMapping, type SiteProfile } from '@codebook/runtime/netsim'
import type { CreatePlan, PlanResult } from '@codebook/shared'

/** A checked plan request; `sites` (a topology's own sites as a profile) replaces the built-in `profile`. */
export type PlanJob = CreatePlan & { sites?: SiteProfile }

/** MPIPP's search bound in the server, ms: well inside the job's time limit. */
export const PLAN_MPIPP_MAX_MS = 20_000

/** The `planMapping` options of a checked request: the one translation the child and the tests share. */
export function planOptions(body: PlanJob) {
  return {
    profile: body.sites ?? body.profile,
    pattern: body.pattern,
    processes: body.processes,
    ...(body.pattern === 'kmeans' ? { patternOptions: { aggregation: body.aggregation } } : {}),
    constraintRatio: body.constraintRatio,
    seed: body.seed,
    planners: [...body.planners],
    ...(body.monteCarlo !== undefined ? { monteCarlo: body.monteCarlo } : {}),
    mpipp: { maxMs: PLAN_MPIPP_MAX_MS },
  }
}

/**
 * The API's answer from `planMapping`'s result: every planner's cost, time and mapping, and which
 * plan is the cheapest (the first in planner order on a tie); a K-means plan names its aggregation.
 */
export function toPlanResult(r: MappingPlanResult, aggregation?: PlanResult['aggregation']): PlanResult {
  const best = r.plans.reduce((a, b) => (b.cost < a.cost ? b : a))
  return {
    profile: r.profile,
    sites: r.sites,
    capacity: r.capacity,
    pattern: r.pattern as PlanResult['pattern'],
    ...(aggregation !== undefined ? { aggregation } : {}),
    processes: r.processes,
    constraints: r.constraints,
    plans: r.plans.map((p) => ({
      algorithm: p.algorithm,
      cost: p.cost,
      planMs: p.planMs,
      ...(p.truncated !== undefined ? { truncated: p.truncated } : {}),
      siteOf: p.siteOf,
      nodeOf: p.nodeOf,
    })),
    chosen: best.algorithm,
    ...(r.monteCarlo
      ? {
          monteCarlo: {
            samples: r.monteCarlo.samples,
            best: r.monteCarlo.best,
            mean: r.monteCarlo.mean,
            fractionBetterThanGeo: r.monteCarlo.fractionBetterThanGeo,
          },
        }
      : {}),
  }
}

/** Plans a checked request (in the plan child: CPU-bound, seconds at thousands of ranks). */
export function runPlan(body: PlanJob): PlanResult {
  return toPlanResult(
    planMapping(planOptions(body)),
    body.pattern === 'kmeans' ? body.aggregation : undefined,
  )
}
