import type { Command } from 'commander'
import { runColumnStats } from '../../column-stats/run-column-stats.ts'
import { type SpawnWorker, spawnLocalWorker } from '../../framework/spawn.ts'
import { WorkerPool } from '../../framework/worker-pool.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { npyDataShape } from './npy-data.ts'
import { positiveInt } from './parse-options.ts'

/** Options of `codebook column-stats`. */
export interface ColumnStatsOptions {
  data: string
  workers: number
  json?: boolean
}

/**
 * Runs `codebook column-stats`: the per-column mean and standard deviation of a .npy, computed by
 * the column-stats application on `workers` local worker processes (one all-reduce).
 */
export async function runColumnStatsCommand(
  o: ColumnStatsOptions,
  io: CommandIo = processIo(),
  spawn: SpawnWorker = spawnLocalWorker,
): Promise<void> {
  await npyDataShape(o.data, 'codebook column-stats')
  const pool = await WorkerPool.start({ workers: o.workers, spawn })
  try {
    const s = await runColumnStats(pool, o.data)
    const std = Array.from(s.variance, Math.sqrt)
    if (o.json) {
      io.stdout.write(`${JSON.stringify({ n: s.n, d: s.d, mean: Array.from(s.mean), std })}\n`)
      return
    }
    io.stdout.write(`n = ${s.n}, d = ${s.d} (${o.workers} workers)\n  dim        mean         std\n`)
    for (let t = 0; t < s.d; t++)
      io.stdout.write(
        `${String(t).padStart(5)} ${s.mean[t]!.toPrecision(6).padStart(11)} ${std[t]!.toPrecision(6).padStart(11)}\n`,
      )
  } finally {
    await pool.close()
  }
}

/** Registers `codebook column-stats`. */
export function registerColumnStats(program: Command, io: CommandIo = processIo()): void {
  program
    .command('column-stats')
    .description(
      'Per-column mean and standard deviation of a .npy on local worker processes: a second application of the Map-Collective framework (row blocks, one all-reduce)',
    )
    .requiredOption('--data <file>', 'vectors, n × d float32 or uint8 .npy')
    .option('--workers <P>', 'worker processes', positiveInt('--workers'), 3)
    .option('--json', 'one JSON object {"n","d","mean","std"}')
    .action((o: ColumnStatsOptions) => runColumnStatsCommand(o, io))
}
