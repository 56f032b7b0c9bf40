import { availableParallelism } from 'node:os'
import { type IterationReport, type StageName, stageNames } from '@codebook/shared'
import type { AggregationMode } from '../collectives/regroup/regroup.ts'
import { UsageError } from '../errors.ts'
import { WorkerPool } from '../framework/worker-pool.ts'
import { benchData } from '../kmeans/bench-data.ts'
import { runKmeans } from '../kmeans/run-kmeans.ts'
import { kmeansPattern } from '../mapping/patterns.ts'
import { type MappingPlanner, type PlannedMapping, planMapping } from '../mapping/plan-mapping.ts'
import { mappingCost, mappingProblem } from '../mapping/problem.ts'
import { loadSiteProfile, type SiteProfile } from '../mapping/site-profile.ts'
import { median } from '../median.ts'
import { placedLabClusterSpec } from '../simulator/lab-sites-cluster.ts'
import {
  type KmeansIterationPrediction,
  type KmeansStage,
  kmeansStages,
  predictKmeansOnCluster,
} from '../simulator/predict-kmeans.ts'
import { predictOverlappedIteration } from '../simulator/predict-kmeans-overlap.ts'
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
  /** Seeded random mappings measured (draw d plans with seed + d, the same pins); `random` is their mean. Default 3. */
  randomDraws?: number
  /**
   * GFLOP/s of one worker's map on one core, for the simulations (default
   * {@link REFERENCE_KERNEL_GFLOPS}: the bench runs the TypeScript reference kernel).
   */
  mapGflops?: number
  /** Cores the lab's workers share (default: this machine's). */
  cores?: number
}

/** One planner's placed run. */
export interface LabBenchMappingRow {
  algorithm: MappingPlanner
  /** `random` only: the draw (0 … R − 1) of this row; absent on the mean of the draws. */
  draw?: number
  /** `random`'s mean row: how many draws it averages. */
  draws?: number
  processes: number
  /** α-β time of one iteration's sends (K-means pattern) with this mapping on the lab's profile, s. */
  modelledSeconds: number
  /**
   * Makespan of one iteration from the event simulator on the lab as configured
   * ({@link simulatePlacedIteration}): each stage's schedule played with its dependencies, s.
   */
  simulatedSeconds: number
  /** The simulated stages, ms. */
  simulatedStagesMs: Record<KmeansStage, number>
  /**
   * The same iteration without stage barriers, as the workers run it (each maps once it holds
   * the centroids, on cores shared by all): {@link predictOverlappedIteration}, s.
   */
  overlappedSeconds: number
  /** Median wall time of one timed iteration placed by this mapping, s. */
  measuredSeconds: number
  /** The planner's own cost: the same pattern on the profile it planned on, s. */
  cost: number
  /** Site of each rank (not printed: the lines keep the fields); empty on random's mean. */
  siteOf: number[]
  /** Lab host of each rank (not printed); empty on random's mean. */
  nodeOf: number[]
  /** Median ms of each stage over the timed iterations (the slowest worker's), to see where time goes. */
  stagesMs: Record<StageName, number>
  /** Bytes an iteration sends between sites (racks = sites), from the workers' reports. */
  crossSiteBytes: number
}

/** Geo's gain over random (the mean of the draws): 1 − geo / random, modelled, simulated and measured. */
export interface LabBenchMappingGain {
  gainOverRandom: {
    algorithm: 'geo'
    modelled: number
    simulated: number
    overlapped: number
    measured: number
    /** The measured gain of each round alone (geo's median that round over the draws' mean of medians). */
    measuredByRound: number[]
    measuredMin: number
    measuredMax: number
  }
}

/** What {@link simulatePlacedIteration} needs of the run: the K-means choices bench mapping makes. */
export type PlacedKmeansRun = Pick<
  LabBenchMappingOptions,
  'lab' | 'k' | 'd' | 'pointsPerProcess' | 'aggregation' | 'chunkBytes' | 'mapGflops' | 'cores'
>

/**
 * GFLOP/s of the TypeScript reference kernel on one core: one worker's map task of this bench
 * (500 × 128 points, k = 1,000) took 118 ms alone under the bench lock (1.09 GFLOP/s,
 * docs/lab.md, "A makespan model against the lab"), rounded down.
 */
export const REFERENCE_KERNEL_GFLOPS = 1

/**
 * One K-means iteration of the run bench mapping measures, placed by `nodeOf` (rank i on host
 * `nodeOf[i]`), predicted by the event simulator on the lab as configured
 * ({@link placedLabClusterSpec}): chain broadcast in rank order from rank 0, one map slot per
 * worker, the regroup and combine of `aggregation` — the schedules the runtime runs. Stage by
 * stage (barriers between stages; every worker maps at once, so each gets cores / p of a core),
 * and as one overlapped iteration ({@link predictOverlappedIteration}).
 */
export function simulatePlacedIteration(
  run: PlacedKmeansRun,
  nodeOf: readonly number[],
): KmeansIterationPrediction & { overlappedSeconds: number } {
  const sites = run.lab.sites
  if (!sites) throw new UsageError('LAB_NEEDS_SITES', `lab ${run.lab.id} has no sites`)
  const p = nodeOf.length
  const gflops = run.mapGflops ?? REFERENCE_KERNEL_GFLOPS
  const cores = run.cores ?? availableParallelism()
  const spec = placedLabClusterSpec({ ...run.lab, sites }, nodeOf)
  const model = {
    n: p * run.pointsPerProcess,
    d: run.d,
    k: run.k,
    broadcast: 'chain' as const,
    order: Array.from({ length: p }, (_, i) => i),
    aggregation: run.aggregation,
    chunkBytes: run.chunkBytes,
    slots: new Array<number>(p).fill(1),
  }
  const staged = predictKmeansOnCluster(spec, { ...model, mapGflopsPerSlot: gflops * Math.min(1, cores / p) })
  return {
    ...staged,
    overlappedSeconds: predictOverlappedIteration(spec, model, { cores, gflopsPerCore: gflops }),
  }
}

/** A mapping measured: a planner's plan, or one draw of `random`. */
interface Placement {
  plan: PlannedMapping
  draw?: number
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

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

/** `random`'s row: the mean of its draws' rows (every figure averaged; no single mapping). */
function meanRow(draws: readonly LabBenchMappingRow[]): LabBenchMappingRow {
  const avg = (f: (r: LabBenchMappingRow) => number) => mean(draws.map(f))
  return {
    algorithm: 'random',
    draws: draws.length,
    processes: draws[0]!.processes,
    modelledSeconds: avg((r) => r.modelledSeconds),
    simulatedSeconds: avg((r) => r.simulatedSeconds),
    simulatedStagesMs: Object.fromEntries(
      kmeansStages.map((s) => [s, avg((r) => r.simulatedStagesMs[s])]),
    ) as Record<KmeansStage, number>,
    overlappedSeconds: avg((r) => r.overlappedSeconds),
    measuredSeconds: avg((r) => r.measuredSeconds),
    cost: avg((r) => r.cost),
    siteOf: [],
    nodeOf: [],
    stagesMs: Object.fromEntries(stageNames.map((s) => [s, avg((r) => r.stagesMs[s])])) as Record<
      StageName,
      number
    >,
    crossSiteBytes: avg((r) => r.crossSiteBytes),
  }
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
 * namespace) and reports, per planner, the modelled α-β time on the lab's profile and the
 * simulated makespan ({@link simulatePlacedIteration}) beside the measured iteration time; `random`
 * is measured for `randomDraws` seeded draws (a row each, then their mean); then geo's gain over
 * random's mean, with the measured gain of each round. The lab is torn down at the end.
 * @throws UsageError `LAB_NEEDS_SITES`, `LAB_BENCH_NEEDS_PLANNERS`, `LAB_PROFILE_MISMATCH`, `BAD_OPTION`.
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
  const draws = o.randomDraws ?? 3
  if (!Number.isInteger(draws) || draws < 1)
    throw new UsageError('BAD_OPTION', `--random-draws must be a positive integer, got ${draws}`)
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
  const planOptions = {
    profile: planProfile,
    pattern: 'kmeans',
    processes,
    patternOptions,
    constraintRatio: o.constraintRatio,
    seed: o.seed,
  }
  const planned = planMapping({ ...planOptions, planners: o.planners })
  // Draw 0 is the plan's own random mapping; draw d re-plans random alone with seed + d and the same pins.
  const randomDraw = (d: number) =>
    planMapping({ ...planOptions, constraints: planned.constraints, seed: o.seed + d, planners: ['random'] })
      .plans[0]!
  const placements: Placement[] = planned.plans.flatMap((plan) =>
    plan.algorithm === 'random'
      ? Array.from({ length: draws }, (_, d) => ({ plan: d === 0 ? plan : randomDraw(d), draw: d }))
      : [{ plan }],
  )
  const { points, init } = benchData(processes * o.pointsPerProcess, o.d, o.k, 0, o.seed)
  const lab = await labUp(o.lab)
  try {
    const profile = o.calibrate ? await calibrateLab(lab) : labProfile(o.lab)
    const onLab = mappingProblem(kmeansPattern(processes, patternOptions), profile)
    // times[placement][round]: the timed iterations' seconds.
    const times = placements.map(() => Array.from({ length: o.rounds }, () => [] as number[]))
    const reports = placements.map(() => [] as IterationReport[])
    for (let round = 0; round < o.rounds; round++)
      for (let i = 0; i < placements.length; i++) {
        const at = (i + round) % placements.length
        const run = await withPlacedPool(lab, placements[at]!.plan.nodeOf, o.chunkBytes, (pool) =>
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
        times[at]![round]!.push(...run.iterationMs.slice(1).map((ms) => ms / 1000))
        reports[at]!.push(...run.reports.slice(1))
      }
    const rows = placements.map(({ plan, draw }, at) => {
      const simulated = simulatePlacedIteration(o, plan.nodeOf)
      const row: LabBenchMappingRow = {
        algorithm: plan.algorithm,
        ...(draw === undefined ? {} : { draw }),
        processes,
        modelledSeconds: mappingCost(onLab, plan.siteOf),
        simulatedSeconds: simulated.seconds,
        simulatedStagesMs: Object.fromEntries(
          kmeansStages.map((s) => [s, simulated.stages[s].seconds * 1000]),
        ) as Record<KmeansStage, number>,
        overlappedSeconds: simulated.overlappedSeconds,
        measuredSeconds: median(times[at]!.flat()),
        cost: plan.cost,
        siteOf: plan.siteOf,
        nodeOf: plan.nodeOf,
        ...stageSummary(reports[at]!),
      }
      onRow(row)
      return row
    })
    const drawRows = rows.filter((r) => r.draw !== undefined)
    const randomMean = meanRow(drawRows)
    onRow(randomMean)
    const geoAt = placements.findIndex((x) => x.plan.algorithm === 'geo')
    const geo = rows[geoAt]!
    const drawsAt = placements.flatMap((x, at) => (x.draw === undefined ? [] : [at]))
    const measuredByRound = Array.from(
      { length: o.rounds },
      (_, r) => 1 - median(times[geoAt]![r]!) / mean(drawsAt.map((at) => median(times[at]![r]!))),
    )
    onRow({
      gainOverRandom: {
        algorithm: 'geo',
        modelled: 1 - geo.modelledSeconds / randomMean.modelledSeconds,
        simulated: 1 - geo.simulatedSeconds / randomMean.simulatedSeconds,
        overlapped: 1 - geo.overlappedSeconds / randomMean.overlappedSeconds,
        measured: 1 - geo.measuredSeconds / randomMean.measuredSeconds,
        measuredByRound,
        measuredMin: Math.min(...measuredByRound),
        measuredMax: Math.max(...measuredByRound),
      },
    })
    return [...rows, randomMean]
  } finally {
    await labDown(o.lab.id)
  }
}
