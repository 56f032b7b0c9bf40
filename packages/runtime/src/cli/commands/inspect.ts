import { type DatasetFormat, datasetFormats, type VectorStats } from '@codebook/shared'
import { type Command, Option } from 'commander'
import { inspectFile } from '../../formats/index.ts'
import type { ReaderLimits } from '../../formats/limits.ts'
import { type CommandIo, processIo, startByteProgress } from '../progress.ts'
import { addReaderLimitOptions, readerLimits } from './reader-limits.ts'

/** Options of `codebook inspect`. */
export interface InspectOptions extends ReaderLimits {
  format?: DatasetFormat
  json?: boolean
}

/** Dimensions shown one per line in the text report; wider data shows the first and last few plus a summary. */
const FULL_TABLE_MAX_D = 32
const EDGE_DIMS = 8

/** Runs `codebook inspect FILE`: one validating pass, then the stats as text or (`json`) the full VectorStats JSON. */
export async function runInspect(
  file: string,
  options: InspectOptions,
  io: CommandIo = processIo(),
): Promise<VectorStats> {
  let bar: ReturnType<typeof startByteProgress> | null = null
  let stats: VectorStats
  try {
    stats = await inspectFile(file, {
      format: options.format,
      ...readerLimits(options),
      onProgress: (p) => {
        bar ??= startByteProgress(io.stderr, p.totalBytes)
        bar.update(p.bytesRead, p.totalBytes, p.rows)
      },
    })
  } finally {
    ;(bar as ReturnType<typeof startByteProgress> | null)?.stop()
  }
  io.stdout.write(options.json ? `${JSON.stringify(stats)}\n` : formatStats(file, stats))
  return stats
}

function num(x: number): string {
  if (Number.isInteger(x)) return String(x)
  const a = Math.abs(x)
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? x.toExponential(4) : x.toFixed(4)
}

/** The human-readable report of `codebook inspect`. */
export function formatStats(file: string, s: VectorStats): string {
  const lines = [
    `file     ${file}`,
    `format   ${s.format}`,
    `rows     ${s.n}`,
    `dims     ${s.d}`,
    `dtype    ${s.dtype}`,
    `bytes    ${s.bytes} (${(s.bytes / 1e6).toFixed(1)} MB)`,
    `ids      ${s.hasIds ? 'yes (pictureId, rowId, colId)' : 'no'}`,
    ...(s.notes?.length ? [`notes    ${s.notes.join('; ')}`] : []),
    '',
    'L2 norm quantiles',
    `  ${s.norms.quantiles.map((q) => `q${q.q}=${num(q.value)}`).join('  ')}`,
    '',
  ]
  const row = (j: number) =>
    `  ${String(j).padStart(6)}  ${num(s.dims.min[j]).padStart(12)}  ${num(s.dims.max[j]).padStart(12)}  ${num(s.dims.mean[j]).padStart(12)}`
  lines.push(
    'per dimension',
    `  ${'dim'.padStart(6)}  ${'min'.padStart(12)}  ${'max'.padStart(12)}  ${'mean'.padStart(12)}`,
  )
  if (s.d <= FULL_TABLE_MAX_D) {
    for (let j = 0; j < s.d; j++) lines.push(row(j))
  } else {
    for (let j = 0; j < EDGE_DIMS; j++) lines.push(row(j))
    lines.push(`  ${'…'.padStart(6)}  (${s.d - 2 * EDGE_DIMS} more; --json prints all)`)
    for (let j = s.d - EDGE_DIMS; j < s.d; j++) lines.push(row(j))
    const meanOfMeans = s.dims.mean.reduce((a, b) => a + b, 0) / s.d
    lines.push(
      `  ${'all'.padStart(6)}  ${num(Math.min(...s.dims.min)).padStart(12)}  ${num(Math.max(...s.dims.max)).padStart(12)}  ${num(meanOfMeans).padStart(12)}`,
    )
  }
  return `${lines.join('\n')}\n`
}

/** Registers `codebook inspect FILE [--format F] [--json] [--max-line-bytes S] [--max-fields N] [--max-expanded-bytes S]`. */
export function registerInspect(program: Command): void {
  const cmd = program
    .command('inspect')
    .description(
      'Validate a vector file in one streaming pass and print n, d, dtype, format, size, per-dimension min/max/mean and norm quantiles',
    )
    .argument('<file>', 'input file (HOG text, .npy, .fvecs, .bvecs or CSV; .gz accepted)')
    .addOption(
      new Option('--format <format>', 'input format (default: from the name, then the content)').choices(
        datasetFormats,
      ),
    )
    .option('--json', 'print the full VectorStats JSON instead of the text report')
  addReaderLimitOptions(cmd).action(async (file: string, options: InspectOptions) => {
    await runInspect(file, options)
  })
}
