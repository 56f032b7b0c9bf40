import { writeFile } from 'node:fs/promises'
import { DEFAULT_PLAN_AGGREGATION } from '@codebook/shared'
import type { Command } from 'commander'
import { aggregationModes, parseAggregation } from '../../collectives/regroup/regroup.ts'
import type { BroadcastScheduleAlgorithm } from '../../collectives/schedules/broadcast-schedule.ts'
import { UsageError } from '../../errors.ts'
import { writeAtomically } from '../../formats/atomic.ts'
import { readCommMatrixNpy, writeCommMatrixNpy } from '../../mapping/comm-matrix-npy.ts'
import { type DnnExchange, dnnExchanges, mappingPatterns, patternMatrix } from '../../mapping/patterns.ts'
import { type MappingPlanResult, mappingPlanners, planMapping } from '../../mapping/plan-mapping.ts'
import { builtInProfiles, loadSiteProfile } from '../../mapping/site-profile.ts'
import { siteProfileOfTopology } from '../../mapping/topology-profile.ts'
import { readTopology } from '../../topology/load-topology.ts'
import { DEFAULT_CHUNK_BYTES } from '../../transport/data-plane.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { byteSize, listOf, nonNegativeInt, nonNegativeNumber, oneOf, positiveInt } from './parse-options.ts'

const broadcasts: readonly BroadcastScheduleAlgorithm[] = ['simple', 'mst', 'bucket', 'chain']

/** Options of `codebook plan mapping`. */
export interface PlanMappingCliOptions {
  profile: string
  /** A topology file: plan onto its own sites and nodes instead of `profile`'s. */
  topology?: string
  pattern: string
  processes?: number
  nodesPerSite?: number
  constraintRatio: number
  seed: number
  planners: (typeof mappingPlanners)[number][]
  monteCarlo?: number
  k: number
  d: number
  broadcast: BroadcastScheduleAlgorithm
  aggregation: (typeof aggregationModes)[number]
  chunkBytes: number
  dnnExchange: DnnExchange
  mpippMaxMs: number
  refineMaxMs: number
  exportMatrix?: string
  out?: string
  json?: boolean
}

/**
 * `codebook plan mapping`: plans where each rank runs across the profile's sites with every
 * planner, prints one line per planner (JSON lines with `--json`) and, with `--monte-carlo K`,
 * the Monte Carlo search's line. `--out` writes the full plan (rank → site and rank → node per
 * planner) as JSON; `--export-matrix` writes the pattern's matrix as .npy.
 */
export async function runPlanMapping(
  o: PlanMappingCliOptions,
  io: CommandIo = processIo(),
): Promise<MappingPlanResult> {
  const profile = o.topology
    ? siteProfileOfTopology(await readTopology(o.topology))
    : await loadSiteProfile(o.profile)
  const fromFile = o.pattern.toLowerCase().endsWith('.npy')
  if (!fromFile && o.processes === undefined)
    throw new UsageError('BAD_OPTION', `--processes is required with --pattern ${o.pattern}`)
  const patternOptions = {
    k: o.k,
    d: o.d,
    broadcast: o.broadcast,
    aggregation: o.aggregation,
    chunkBytes: o.chunkBytes,
    exchange: o.dnnExchange,
  }
  const matrix = fromFile
    ? await readCommMatrixNpy(o.pattern)
    : patternMatrix(o.pattern, o.processes!, patternOptions)
  if (fromFile && o.processes !== undefined && o.processes !== matrix.processes)
    throw new UsageError(
      'BAD_OPTION',
      `--processes ${o.processes} but ${o.pattern} is ${matrix.processes} × ${matrix.processes}`,
    )
  if (o.exportMatrix) await writeCommMatrixNpy(o.exportMatrix, matrix)
  const result = planMapping({
    profile,
    pattern: o.pattern,
    matrix,
    ...(o.nodesPerSite !== undefined ? { nodesPerSite: o.nodesPerSite } : {}),
    constraintRatio: o.constraintRatio,
    seed: o.seed,
    planners: o.planners,
    ...(o.monteCarlo ? { monteCarlo: o.monteCarlo } : {}),
    mpipp: { maxMs: o.mpippMaxMs },
    geoRefined: { maxMs: o.refineMaxMs },
  })
  if (o.out) {
    const out = o.out
    // A K-means plan names the aggregation it priced: `codebook kmeans --mapping` runs with it.
    const written = o.pattern === 'kmeans' ? { ...result, aggregation: o.aggregation } : result
    await writeAtomically(out, (tmp) => writeFile(tmp, `${JSON.stringify(written)}\n`))
  }
  const random = result.plans.find((p) => p.algorithm === 'random')?.cost
  for (const p of result.plans) {
    const line = {
      algorithm: p.algorithm,
      pattern: o.pattern,
      processes: result.processes,
      cost: p.cost,
      planMs: p.planMs,
    }
    io.stdout.write(
      o.json
        ? `${JSON.stringify(p.truncated ? { ...line, truncated: true } : line)}\n`
        : `${p.algorithm.padEnd(11)} cost ${p.cost.toFixed(4).padStart(12)} s${random ? `  gain over random ${((1 - p.cost / random) * 100).toFixed(1).padStart(5)} %` : ''}  planned in ${p.planMs.toFixed(1)} ms${p.truncated ? ' (time bound hit)' : ''}\n`,
    )
  }
  const mc = result.monteCarlo
  if (mc) {
    const line = {
      algorithm: 'monte-carlo',
      samples: mc.samples,
      best: mc.best,
      fractionBetterThanGeo: mc.fractionBetterThanGeo,
    }
    io.stdout.write(
      o.json
        ? `${JSON.stringify(line)}\n`
        : `monte-carlo best of ${mc.samples}: ${mc.best.toFixed(4)} s (mean ${mc.mean.toFixed(4)} s)${mc.fractionBetterThanGeo === null ? '' : `; ${(mc.fractionBetterThanGeo * 100).toFixed(3)} % beat geo`}\n`,
    )
  }
  return result
}

/** Registers `codebook plan …`. */
export function registerPlan(program: Command): void {
  const plan = program.command('plan').description('Plan placements from a model of the network')
  plan
    .command('mapping')
    .description(
      'Map N processes onto geo-distributed sites: the α-β cost of each planner (geo = Zhou & He Algorithm 1, geo-refined = it refined by pairwise exchanges, greedy, mpipp, random)',
    )
    .requiredOption(
      '--pattern <name|FILE.npy>',
      `communication pattern: ${mappingPatterns.join(', ')}, or an N × N .npy of bytes (message counts in FILE.messages.npy when present)`,
    )
    .option(
      '--profile <name|file>',
      `site profile: ${Object.keys(builtInProfiles).join(', ')} (Zhou & He's measured regions) or a profile JSON`,
      'ec2-4',
    )
    .option(
      '--topology <file>',
      "plan onto a topology's own sites and nodes (its site links priced as a profile; overrides --profile)",
    )
    .option('--processes <N>', 'ranks of a built-in pattern', positiveInt('--processes'))
    .option(
      '--nodes-per-site <n>',
      'nodes per site (default: the processes spread evenly)',
      positiveInt('--nodes-per-site'),
    )
    .option('--constraint-ratio <r>', 'share of ranks pinned to a random site', ratio, 0)
    .option('--seed <n>', 'seed of the constraints and the random planners', nonNegativeInt('--seed'), 1)
    .option(
      '--planners <list>',
      `comma-separated: ${mappingPlanners.join(', ')}`,
      listOf('--planners', mappingPlanners),
      [...mappingPlanners],
    )
    .option('--monte-carlo <K>', 'also price K random mappings', positiveInt('--monte-carlo'))
    .option('--k <K>', 'kmeans pattern: centroids', positiveInt('--k'), 1000)
    .option('--d <D>', 'kmeans pattern: dimensions', positiveInt('--d'), 128)
    .option(
      '--broadcast <name>',
      `kmeans pattern: ${broadcasts.join(', ')}`,
      oneOf('--broadcast', broadcasts),
      'chain',
    )
    .option(
      '--aggregation <mode>',
      `kmeans pattern: ${aggregationModes.join(', ')} (ring: a K-means run placed across sites)`,
      parseAggregation,
      DEFAULT_PLAN_AGGREGATION,
    )
    .option(
      '--chunk-bytes <size>',
      'kmeans pattern: broadcast chunk',
      byteSize('--chunk-bytes'),
      DEFAULT_CHUNK_BYTES,
    )
    .option(
      '--dnn-exchange <kind>',
      `dnn pattern: ${dnnExchanges.join(', ')}`,
      oneOf('--dnn-exchange', dnnExchanges),
      'parameter-server',
    )
    .option(
      '--mpipp-max-ms <ms>',
      'time bound of MPIPP’s search',
      nonNegativeNumber('--mpipp-max-ms'),
      20_000,
    )
    .option(
      '--refine-max-ms <ms>',
      'time bound of geo-refined’s refinement (after its fills)',
      nonNegativeNumber('--refine-max-ms'),
      20_000,
    )
    .option('--export-matrix <file.npy>', 'write the communication matrix as .npy (+ .messages.npy)')
    .option('--out <plan.json>', 'write every plan (rank → site, rank → node) as JSON')
    .option('--json', 'one JSON object per line')
    .action(async (opts) => {
      await runPlanMapping(opts)
    })
}

/** Parses `--constraint-ratio`: a share in [0, 1]. */
export function ratio(v: string): number {
  const r = Number(v)
  if (!(r >= 0 && r <= 1))
    throw new UsageError('BAD_OPTION', `--constraint-ratio must be in [0, 1], got '${v}'`)
  return r
}
