import { type Command, Option } from 'commander'
import { type BroadcastAlgorithm, broadcastAlgorithms } from '../../collectives/broadcast/index.ts'
import { type CollectiveSpec, collectiveOps, runCollectiveOn } from '../../collectives/collective-app.ts'
import { type SpawnWorker, spawnLocalWorker } from '../../framework/spawn.ts'
import { WorkerPool } from '../../framework/worker-pool.ts'
import { median } from '../../median.ts'
import { DEFAULT_CHUNK_BYTES } from '../../transport/data-plane.ts'
import { type CommandIo, processIo } from '../progress.ts'
import { byteSize, intList, listOf, positiveInt } from './parse-options.ts'

type CollectiveOp = (typeof collectiveOps)[number]

/** Options of `codebook bench collective`. */
export interface BenchCollectiveOptions {
  op: CollectiveOp
  algorithms: BroadcastAlgorithm[]
  workers: number[]
  bytes: number
  repeats: number
  chunkBytes: number
  json?: boolean
}

/** One measured configuration. */
export interface BenchRow {
  op: CollectiveOp
  algorithm: string
  workers: number
  bytes: number
  /** Median over repeats of the slowest participant's time, ms. */
  ms: number
  /** Algorithm bandwidth S/t, GB/s (10^9 bytes). */
  algbw: number
  /** Bus bandwidth per nccl-tests: algbw × the op's factor (1 for broadcast, 2(p−1)/p all-reduce, (p−1)/p all-gather). */
  busbw: number
}

/** The nccl-tests bus-bandwidth factor of an op on p ranks. */
export function busFactor(op: CollectiveOp, p: number): number {
  if (op === 'all-reduce') return (2 * (p - 1)) / p
  if (op === 'all-gather' || op === 'gather') return (p - 1) / p
  return 1
}

/**
 * Times one collective alone on worker subsets of each size: one pool of max(workers) local
 * processes, one warm-up run (connections, JIT), then the median of `repeats` runs of the
 * slowest participant's time (each worker times the collective from its own start).
 */
export async function runBenchCollective(
  o: BenchCollectiveOptions,
  io: CommandIo = processIo(),
  spawn: SpawnWorker = spawnLocalWorker,
): Promise<BenchRow[]> {
  const pool = await WorkerPool.start({ workers: Math.max(...o.workers), spawn, chunkBytes: o.chunkBytes })
  const rows: BenchRow[] = []
  try {
    if (!o.json)
      io.stdout.write(
        `${'op'.padEnd(11)}${'algorithm'.padEnd(10)}${'workers'.padStart(8)}${'bytes'.padStart(12)}${'ms'.padStart(10)}${'algbw GB/s'.padStart(12)}${'busbw GB/s'.padStart(12)}\n`,
      )
    const algorithms = o.op === 'broadcast' ? o.algorithms : (['ring'] as const)
    for (const p of o.workers) {
      for (const algorithm of algorithms) {
        const spec: Partial<CollectiveSpec> & Pick<CollectiveSpec, 'op' | 'ranks' | 'bytes'> = {
          op: o.op,
          ranks: Array.from({ length: p }, (_, i) => i),
          bytes: o.bytes,
          sync: true,
          ...(o.op === 'broadcast'
            ? { algorithm: algorithm as BroadcastAlgorithm, chainOrder: 'rank' as const }
            : {}),
        }
        await runCollectiveOn(pool, spec)
        const times: number[] = []
        for (let r = 0; r < o.repeats; r++) {
          const out = await runCollectiveOn(pool, spec)
          times.push(Math.max(...out.map((x) => x.ms)))
        }
        const ms = median(times)
        const algbw = o.bytes / (ms / 1000) / 1e9
        const row: BenchRow = {
          op: o.op,
          algorithm,
          workers: p,
          bytes: o.bytes,
          ms,
          algbw,
          busbw: algbw * busFactor(o.op, p),
        }
        rows.push(row)
        io.stdout.write(
          o.json
            ? `${JSON.stringify(row)}\n`
            : `${o.op.padEnd(11)}${algorithm.padEnd(10)}${String(p).padStart(8)}${String(o.bytes).padStart(12)}${ms.toFixed(2).padStart(10)}${algbw.toFixed(3).padStart(12)}${row.busbw.toFixed(3).padStart(12)}\n`,
        )
      }
    }
  } finally {
    await pool.close()
  }
  return rows
}

/** Registers `codebook bench collective`. */
export function registerBenchCollective(program: Command, io: CommandIo = processIo()): void {
  const bench =
    program.commands.find((c) => c.name() === 'bench') ?? program.command('bench').description('Benchmarks')
  bench
    .command('collective')
    .description(
      'Time one collective alone on local worker processes over loopback: median of --repeats runs after a warm-up; prints algbw = S/t and busbw per nccl-tests.',
    )
    .addOption(new Option('--op <op>', 'collective').choices(collectiveOps).default('broadcast'))
    .option(
      '--algorithms <list>',
      'broadcast algorithms, comma-separated',
      listOf('--algorithms', broadcastAlgorithms),
      [...broadcastAlgorithms],
    )
    .option('--workers <list>', 'worker counts, comma-separated', intList('--workers'), [2, 4, 8])
    .option(
      '--bytes <size>',
      'message size (binary units: 64MB = 64 × 2^20)',
      byteSize('--bytes'),
      64 * 1024 * 1024,
    )
    .option('--repeats <n>', 'timed runs per configuration', positiveInt('--repeats'), 5)
    .option('--chunk-bytes <B>', 'data-plane chunk size', byteSize('--chunk-bytes'), DEFAULT_CHUNK_BYTES)
    .option('--json', 'one JSON object per configuration')
    .action(async (o: BenchCollectiveOptions) => {
      await runBenchCollective(o, io)
    })
}
