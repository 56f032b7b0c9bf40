import type { Command } from 'commander'
import {
  benchReduction,
  type ReductionBenchOptions,
  type ReductionBenchRow,
} from '../../collectives/reduce/bench-reduction.ts'
import { treeReductions } from '../../collectives/reduce/reduce.ts'
import { type SpawnWorker, spawnLocalWorker } from '../../framework/spawn.ts'
import { WorkerPool } from '../../framework/worker-pool.ts'
import { DEFAULT_CHUNK_BYTES } from '../../transport/data-plane.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { byteSize, listOf, nonNegativeInt, nonNegativeNumber, positiveInt } from './parse-options.ts'

/** Options of `codebook bench reduction`: the library's, and the pool's size. */
export interface BenchReductionOptions extends Omit<ReductionBenchOptions, 'onRun'> {
  workers: number
  json?: boolean
}

/**
 * Runs `codebook bench reduction`: spawns `workers` local worker processes and times the four
 * reductions on the same injected gamma delays, beside the study's prediction for those draws;
 * one line per algorithm.
 */
export async function runBenchReduction(
  o: BenchReductionOptions,
  io: CommandIo = processIo(),
  spawn: SpawnWorker = spawnLocalWorker,
): Promise<ReductionBenchRow[]> {
  const pool = await WorkerPool.start({ workers: o.workers, spawn, chunkBytes: DEFAULT_CHUNK_BYTES })
  try {
    const progress = io.stderr.isTTY
      ? (r: number) => io.stderr.write(`instance ${r + 1}/${o.runs}${r + 1 === o.runs ? '\n' : '\r'}`)
      : undefined
    const rows = await benchReduction(pool, { ...o, onRun: progress })
    if (!o.json)
      io.stdout.write(
        `${'algorithm'.padEnd(20)}${'workers'.padStart(8)}${'bytes'.padStart(12)}${'cv'.padStart(7)}${'tree ms'.padStart(10)}${'to root ms'.padStart(12)}${'study ms'.padStart(10)}${'ratio'.padStart(8)}\n`,
      )
    for (const r of rows)
      io.stdout.write(
        o.json
          ? `${JSON.stringify(r)}\n`
          : `${r.algorithm.padEnd(20)}${String(r.workers).padStart(8)}${String(r.bytes).padStart(12)}${String(r.jitterCv).padStart(7)}${r.measuredMs.toFixed(1).padStart(10)}${r.toRootMs.toFixed(1).padStart(12)}${r.predictedMs.toFixed(1).padStart(10)}${(r.predictedMs > 0 ? (r.measuredMs / r.predictedMs).toFixed(2) : '–').padStart(8)}\n`,
      )
    return rows
  } finally {
    await pool.close()
  }
}

/** Registers `codebook bench reduction`. */
export function registerBenchReduction(program: Command, io: CommandIo = processIo()): void {
  const bench =
    program.commands.find((c) => c.name() === 'bench') ?? program.command('bench').description('Benchmarks')
  bench
    .command('reduction')
    .description(
      "Time the four reductions (binomial, fibonacci, tree-dyn, noncommut-tree-dyn) on local worker processes with injected heterogeneity: per instance, each transfer i → j waits d(i→j) and each ⊕ at j waits c(j), gamma draws of mean --link-ms / --compute-ms and CV --jitter-cv (the study's distributions). Prints the mean measured time per algorithm beside the study's makespan for the same draws.",
    )
    .option('--workers <P>', 'worker processes', positiveInt('--workers'), 8)
    .option(
      '--bytes <size>',
      "each worker's value (whole 64-byte keys; binary units)",
      byteSize('--bytes'),
      64 * 1024,
    )
    .option(
      '--jitter-cv <CV>',
      'coefficient of variation of every delay',
      nonNegativeNumber('--jitter-cv'),
      1,
    )
    .option('--link-ms <ms>', 'mean delay of a transfer (the study μd)', nonNegativeNumber('--link-ms'), 20)
    .option('--compute-ms <ms>', 'mean delay of a ⊕ (the study μc)', nonNegativeNumber('--compute-ms'), 0)
    .option('--runs <n>', 'instances (fresh draws; every algorithm runs each)', positiveInt('--runs'), 5)
    .option('--seed <S>', 'seed of the draws', nonNegativeInt('--seed'), 1)
    .option('--algorithms <list>', 'reductions, comma-separated', listOf('--algorithms', treeReductions), [
      ...treeReductions,
    ])
    .option(
      '--json',
      'one JSON object per algorithm (with every instance); tree ms = barrier to the last ⊕, to root ms = moving the result to worker 0 after it',
    )
    .action(async (o: BenchReductionOptions) => {
      await runBenchReduction(o, io)
    })
}
