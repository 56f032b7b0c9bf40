import type { Command } from 'commander'
import { parseAggregation } from '../../collectives/regroup/regroup.ts'
import { type LabBenchMappingOptions, runLabBenchMapping } from '../../lab/bench-mapping.ts'
import type { LabSpec } from '../../lab/lab-plan.ts'
import { mappingPlanners } from '../../mapping/plan-mapping.ts'
import type { CommandIo } from '../progress.ts'
import { byteSize, listOf, nonNegativeInt, positiveInt, positiveNumber } from './parse-options.ts'
import { ratio } from './plan.ts'

const pct = (x: number) => `${(x * 100).toFixed(1)} %`

type Flags = Omit<LabBenchMappingOptions, 'lab' | 'planProfile'> & {
  profile?: string
  planProfile?: string
  json?: boolean
}

/**
 * Registers `codebook lab bench mapping` on `bench`: `shape` adds the lab flags (`--profile`,
 * `--hosts-per-site`, `--scale`, …) and `specOf` turns them into the lab's spec.
 */
export function registerLabBenchMapping(
  bench: Command,
  shape: (cmd: Command) => Command,
  specOf: (flags: never) => Promise<LabSpec>,
  io: CommandIo,
  chunkBytes: number,
): void {
  shape(
    bench
      .command('mapping')
      .description(
        'Plan a K-means run over a lab with sites (--profile, e.g. ec2-4 --hosts-per-site 3 --scale 0.02), run real iterations placed by each planner, print {"algorithm","processes","modelledSeconds","simulatedSeconds","measuredSeconds","cost"} per planner (random: each draw, then their mean), then geo\'s gain over random',
      ),
  )
    .option('--plan-profile <name|file>', 'the profile the planners plan on (default: --profile)')
    .option('--calibrate', 'price each mapping on the lab as calibrated (ping-pong) instead of as configured')
    .option('--k <K>', 'centroids', positiveInt('--k'), 1000)
    .option('--d <D>', 'dimensions', positiveInt('--d'), 128)
    .option(
      '--points-per-process <n>',
      'points per process (standard normal)',
      positiveInt('--points-per-process'),
      500,
    )
    .option(
      '--aggregation <mode>',
      'three-stage (all-to-all regroup), ring, direct, allreduce',
      parseAggregation,
      'three-stage',
    )
    .option(
      '--chunk-bytes <B>',
      'broadcast chunk (the pattern and the run)',
      byteSize('--chunk-bytes'),
      chunkBytes,
    )
    .option('--constraint-ratio <r>', 'share of ranks pinned to a random site', ratio, 0.2)
    .option(
      '--seed <n>',
      'seed of the constraints, the random planner and the data',
      nonNegativeInt('--seed'),
      1,
    )
    .option(
      '--planners <list>',
      `comma-separated: ${mappingPlanners.join(', ')}`,
      listOf('--planners', mappingPlanners),
      [...mappingPlanners],
    )
    .option(
      '--iterations <N>',
      'timed iterations per planner and round, after one untimed',
      positiveInt('--iterations'),
      3,
    )
    .option(
      '--rounds <N>',
      'rounds over all planners (the median is over every round)',
      positiveInt('--rounds'),
      1,
    )
    .option(
      '--random-draws <R>',
      'seeded random mappings measured; random is their mean',
      positiveInt('--random-draws'),
      3,
    )
    .option(
      '--map-gflops <G>',
      "GFLOP/s of one worker's map on one core, for the simulations (default 1: the reference kernel)",
      positiveNumber('--map-gflops'),
    )
    .option(
      '--cores <C>',
      "cores the workers share, for the simulations (default: this machine's)",
      positiveInt('--cores'),
    )
    .option('--json', 'one JSON object per line')
    .action(async (o: Flags) => {
      const lab = await specOf({ ...o, profile: o.profile ?? 'ec2-4' } as never)
      await runLabBenchMapping(
        {
          ...o,
          calibrate: o.calibrate === true,
          lab,
          planProfile: o.planProfile ?? o.profile ?? 'ec2-4',
        },
        (row) => {
          if (o.json) {
            // The issue's fields first; stagesMs and crossSiteBytes show where the time went.
            const {
              siteOf: _s,
              nodeOf: _n,
              ...line
            } = 'siteOf' in row ? row : { ...row, siteOf: null, nodeOf: null }
            io.stdout.write(`${JSON.stringify(line)}\n`)
          } else if ('gainOverRandom' in row)
            io.stdout.write(
              `geo over random: modelled ${pct(row.gainOverRandom.modelled)}, simulated ${pct(row.gainOverRandom.simulated)}, overlapped ${pct(row.gainOverRandom.overlapped)}, measured ${pct(row.gainOverRandom.measured)} (rounds ${pct(row.gainOverRandom.measuredMin)} … ${pct(row.gainOverRandom.measuredMax)})\n`,
            )
          else
            io.stdout.write(
              `${`${row.algorithm}${row.draw === undefined ? (row.draws ? ` (mean of ${row.draws})` : '') : ` #${row.draw}`}`.padEnd(20)} ${row.processes} processes  modelled ${row.modelledSeconds.toFixed(3)} s  simulated ${row.simulatedSeconds.toFixed(3)} s  overlapped ${row.overlappedSeconds.toFixed(3)} s  measured ${row.measuredSeconds.toFixed(3)} s  cost ${row.cost.toFixed(3)}\n`,
            )
        },
      )
    })
}
