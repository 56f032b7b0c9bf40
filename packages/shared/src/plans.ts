import { z } from 'zod'
import { runAggregations } from './run-defaults.ts'

/**
 * HTTP contract of `POST /api/plans`: geo-distributed process mapping (issue 21) — where each
 * rank of a workload runs across a site profile's sites, priced by the α-β model per planner.
 * The names mirror the runtime's `mappingPatterns`, `mappingPlanners` and `builtInProfiles`
 * (a server test keeps them equal; this package cannot import the runtime).
 */

/** Limits the server enforces (coded 400s beyond them), so one request cannot hold the planner for long. */
export const PLAN_LIMITS = {
  /** Ranks of one plan (the paper's largest case). */
  maxProcesses: 8192,
  /** Ranks of the `kmeans` pattern: derived from its schedules, O(p²) sends (the runtime's bound). */
  maxKmeansProcesses: 1024,
  /** Random mappings of one Monte Carlo search. */
  maxMonteCarloSamples: 100_000,
} as const

/** Built-in communication patterns: a K-means iteration, NPB BT / SP / LU stencils, a DNN's exchange. */
export const planPatterns = ['kmeans', 'bt', 'sp', 'lu', 'dnn'] as const
export type PlanPattern = (typeof planPatterns)[number]

/** Planners: Zhou & He's Algorithm 1 (`geo`), it refined by pairwise exchanges (`geo-refined`), and the baselines. */
export const planPlanners = ['geo', 'geo-refined', 'greedy', 'mpipp', 'random'] as const
export type PlanPlanner = (typeof planPlanners)[number]

/**
 * How a planned K-means iteration reduces its partial sums (the runtime's aggregation modes).
 * Across sites the default is `ring`: three-stage's all-to-all sends p(p − 1) blocks whatever the
 * placement (on ec2-4 at 64 ranks, 243.7 modelled seconds for the best plan), while a ring placed
 * site by site crosses a site boundary a few times per step (41.5 s) — so a plan, and the run it
 * places, use the ring unless asked otherwise.
 */
export const planAggregations = runAggregations
/** The aggregation a K-means plan assumes when none is given. */
export const DEFAULT_PLAN_AGGREGATION = 'ring' as const satisfies (typeof planAggregations)[number]

/** Built-in site profiles (`ec2-4`: the geo paper's four EC2 regions, Tables 1–2; `azure-3`: its three Azure regions, Table 3). */
export const planProfiles = ['ec2-4', 'azure-3'] as const
export type PlanProfile = (typeof planProfiles)[number]

/** Body of `POST /api/plans`. Defaults are the CLI's (`codebook plan mapping`). */
export const CreatePlan = z.object({
  profile: z.enum(planProfiles).default('ec2-4'),
  processes: z.number().int().min(2).max(PLAN_LIMITS.maxProcesses),
  pattern: z.enum(planPatterns),
  /** `kmeans` only: the iteration's aggregation ({@link DEFAULT_PLAN_AGGREGATION} across sites). */
  aggregation: z.enum(planAggregations).default(DEFAULT_PLAN_AGGREGATION),
  /** Share of ranks pinned to a random site (seeded). */
  constraintRatio: z.number().min(0).max(1).default(0),
  seed: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 31)
    .default(1),
  /** Planners to run, in this order (no repeats). */
  planners: z
    .array(z.enum(planPlanners))
    .min(1)
    .max(planPlanners.length)
    .refine((a) => new Set(a).size === a.length, 'planners must not repeat')
    .default([...planPlanners]),
  /** Also price this many random mappings (best, mean, share cheaper than geo). */
  monteCarlo: z.number().int().positive().max(PLAN_LIMITS.maxMonteCarloSamples).optional(),
})
export type CreatePlan = z.infer<typeof CreatePlan>
export type CreatePlanInput = z.input<typeof CreatePlan>

/** One planner's outcome: modelled time of one communication step, how long planning took, the mapping. */
export const PlanCost = z.object({
  algorithm: z.enum(planPlanners),
  /** α-β cost, seconds. */
  cost: z.number(),
  planMs: z.number(),
  /** MPIPP only: its time bound cut the search short. */
  truncated: z.boolean().optional(),
  /** Site index per rank. */
  siteOf: z.array(z.number().int()),
  /** Node per rank: site s's nodes are numbered after the nodes of sites 0 … s − 1. */
  nodeOf: z.array(z.number().int()),
})
export type PlanCost = z.infer<typeof PlanCost>

/** The answer of `POST /api/plans`. */
export const PlanResult = z.object({
  profile: z.string(),
  sites: z.array(z.string()),
  /** Nodes per site (the processes spread evenly over the sites). */
  capacity: z.array(z.number().int()),
  pattern: z.enum(planPatterns),
  /** `kmeans` only: the aggregation the plan priced (a run placed by it should use the same). */
  aggregation: z.enum(planAggregations).optional(),
  processes: z.number().int(),
  /** Pinned site per rank, −1 = free. */
  constraints: z.array(z.number().int()),
  plans: z.array(PlanCost),
  /** The planner of the cheapest plan (the first in planner order on a tie): the mapping to use. */
  chosen: z.enum(planPlanners),
  monteCarlo: z
    .object({
      samples: z.number().int(),
      best: z.number(),
      mean: z.number(),
      /** Share of the samples strictly cheaper than geo (null when geo did not run). */
      fractionBetterThanGeo: z.number().nullable(),
    })
    .optional(),
})
export type PlanResult = z.infer<typeof PlanResult>
