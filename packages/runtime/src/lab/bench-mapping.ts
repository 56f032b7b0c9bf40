import { type IterationReport, type StageName, stageNames } from '@codebook/shared'
import type { AggregationMode } from '../collectives/regroup/regroup.ts'
import { UsageError } from '../errors.ts'
import { WorkerPool } from '../framework/worker-pool.ts'
import { benchData } from '../kmeans/bench-data.ts'
import { runKmeans } from '../kmeans/run-kmeans.ts'
import { kmeansPattern } from '../mapping/patterns.ts'
import { type MappingPlanner, planMapping } from '../mapping/plan-mapping.ts'
import { mappingCost, mappingProblem } from '../mapping/problem.ts'
import { loadSiteProfile, type SiteProfile } from '../mapping/site-profile.ts'
import { median } from '../median.ts'
import { calibrateLab } from './lab-calibrate.ts'
import { labDown, labUp } from './lab-net.ts'
import type { LabPlan, LabSpec } from './lab-plan.ts'
import { labProfile } from './lab-sites.ts'
import { spawnInLab } from './lab-workers.ts'

/** Options of {@link runLabBenchMapping}. */
export interface LabBenchMappingOptions {
  /** A lab with sites (`labSitesFromProfile`): one process per host. */
  lab: LabSpec
  /** The profile the planners plan on (built-in name or file), e.g. `ec2-4`. */
  planProfile: string
  /** Price each mapping on the lab as calibrated (`lab calibrate`) instead of as configured. */
  calibrate: boolean
  k: number
  d: number
  /** Points per process. */
  pointsPerProcess: number
  aggregation: AggregationMode
  chunkBytes: number
  constraintRatio: number
  seed: number
  planners: MappingPlanner[]
  /** Timed iterations per planner and round, after one untimed. */
  iterations: number
  /** Rounds over all planners (each round starts with the next planner, so drift spreads evenly). */
  rounds: number
}

/** One planner's placed run. */
export interface LabBenchMappingRow {
  algorithm: MappingPlanner
  processes: number
  /** α-β time of one iteration's sends (K-means pattern) with this mapping on the lab's profile, s. */
  modelledSeconds: number
  /** Median wall time of one timed iteration placed by this mapping, s. */
  measuredSeconds: number
  /** The planner's own cost: the same pattern on the profile it planned on, s. */
  cost: number
  /** Site of each rank (not printed: the lines keep the fields). */
  siteOf: number[]
  /** Median ms of each stage over the timed iterations (the slowest worker's), to see where time goes. */
  stagesMs: Record<StageName, number>
  /** Bytes an iteration sends between sites (racks = sites), from the workers' reports. */
  crossSiteBytes: number
}

/** Geo's gain over random: 1 − geo / random, modelled and measured. */
export interface LabBenchMappingGain {
  gainOverRandom: { algorithm: 'geo'; modelled: number; measured: number }
}

/** Median stage times and cross-site bytes of the timed iterations. */
function stageSummary(reports: IterationReport[]): Pick<LabBenchMappingRow, 'stagesMs' | 'crossSiteBytes'> {
  const stagesMs = Object.fromEntries(
    stageNames.map((s) => [s, median(reports.map((r) => r.stages[s].ms))]),
  ) as Record<StageName, number>
  const crossSiteBytes = median(
    reports.map((r) => stageNames.reduce((sum, s) => sum + r.stages[s].crossRackBytes, 0)),
  )
  return { stagesMs, crossSiteBytes }
}

/** Runs `run` with a pool of one worker per lab host, worker i on host `nodeOf[i]`. */
async function withPlacedPool<T>(
  lab: LabPlan,
  nodeOf: number[],
  chunkBytes: number,
  run: (pool: WorkerPool) => Promise<T>,
): Promise<T> {
  const hosts = nodeOf.map((j) => lab.hosts[j]!)
  const pool = await WorkerPool.start({
    workers: hosts.length,
    spawn: spawnInLab(hosts),
    racks: hosts.map((h) => h.rack),
    host: lab.driverAddress,
    chunkBytes,
    registerTimeoutMs: 60_000,
  })
  try {
    return await run(pool)
  } finally {
    await pool.close()
  }
}

/**
 * Plans a K-means run over every host of a lab with sites (pattern `kmeans`: chain broadcast
 * in rank order, `aggregation`, as the runtime schedules them) with each planner, then runs
 * real K-means iterations placed by each plan (worker i on node `nodeOf[i]`, in that host's
 * namespace) and reports, per planner, the modelled α-β time on the lab's profile beside the
 * measured iteration time; then geo's gain over random. The lab is torn down at the end.
 * @throws UsageError `LAB_NEEDS_SITES`, `LAB_BENCH_NEEDS_PLANNERS`, `LAB_PROFILE_MISMATCH`.
 */
export async function runLabBenchMapping(
  o: LabBenchMappingOptions,
  onRow: (row: LabBenchMappingRow | LabBenchMappingGain) => void = () => {},
): Promise<LabBenchMappingRow[]> {
  if (!o.lab.sites)
    throw new UsageError('LAB_NEEDS_SITES', 'lab bench mapping needs a lab with sites (--profile)')
  for (const p of ['geo', 'random'] as const)
    if (!o.planners.includes(p))
      throw new UsageError(
        'LAB_BENCH_NEEDS_PLANNERS',
        `the gain over random needs planner "${p}" in --planners`,
      )
  const processes = o.lab.racks * o.lab.hostsPerRack
  const loaded = await loadSiteProfile(o.planProfile)
  if (loaded.sites.length !== o.lab.racks)
    throw new UsageError(
      'LAB_PROFILE_MISMATCH',
      `profile "${loaded.name}" has ${loaded.sites.length} sites, the lab ${o.lab.racks} (sites match by position)`,
    )
  const planProfile: SiteProfile = { ...loaded, nodes: new Array(o.lab.racks).fill(o.lab.hostsPerRack) }
  const patternOptions = {
    k: o.k,
    d: o.d,
    broadcast: 'chain' as const,
    aggregation: o.aggregation,
    chunkBytes: o.chunkBytes,
  }
  const planned = planMapping({
    profile: planProfile,
    pattern: 'kmeans',
    processes,
    patternOptions,
    constraintRatio: o.constraintRatio,
    seed: o.seed,
    planners: o.planners,
  })
  const { points, init } = benchData(processes * o.pointsPerProcess, o.d, o.k, 0, o.seed)
  const lab = await labUp(o.lab)
  try {
    const profile = o.calibrate ? await calibrateLab(lab) : labProfile(o.lab)
    const onLab = mappingProblem(kmeansPattern(processes, patternOptions), profile)
    const times = new Map<MappingPlanner, number[]>(o.planners.map((p) => [p, []]))
    const reports = new Map<MappingPlanner, IterationReport[]>(o.planners.map((p) => [p, []]))
    for (let round = 0; round < o.rounds; round++)
      for (let i = 0; i < planned.plans.length; i++) {
        const plan = planned.plans[(i + round) % planned.plans.length]!
        const run = await withPlacedPool(lab, plan.nodeOf, o.chunkBytes, (pool) =>
          runKmeans(pool, {
            data: { kind: 'inline', points, d: o.d },
            init,
            maxIterations: o.iterations + 1,
            tol: -1, // never stop on inertia: every planner runs the same iterations
            slots: 1,
            broadcast: 'chain',
            chainOrder: 'rank',
            aggregation: o.aggregation,
            seed: o.seed,
            now: () => performance.now(),
          }),
        )
        times.get(plan.algorithm)!.push(...run.iterationMs.slice(1).map((ms) => ms / 1000))
        reports.get(plan.algorithm)!.push(...run.reports.slice(1))
      }
    const rows = planned.plans.map((plan) => {
      const row: LabBenchMappingRow = {
        algorithm: plan.algorithm,
        processes,
        modelledSeconds: mappingCost(onLab, plan.siteOf),
        measuredSeconds: median(times.get(plan.algorithm)!),
        cost: plan.cost,
        siteOf: plan.siteOf,
        ...stageSummary(reports.get(plan.algorithm)!),
      }
      onRow(row)
      return row
    })
    const geo = rows.find((r) => r.algorithm === 'geo')!
    const random = rows.find((r) => r.algorithm === 'random')!
    onRow({
      gainOverRandom: {
        algorithm: 'geo',
        modelled: 1 - geo.modelledSeconds / random.modelledSeconds,
        measured: 1 - geo.measuredSeconds / random.measuredSeconds,
      },
    })
    return rows
  } finally {
    await labDown(o.lab.id)
  }
}
