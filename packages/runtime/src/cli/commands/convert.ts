import { type DatasetFormat, datasetFormats, type VectorDtype, type VectorStats } from '@codebook/shared'
import { type Command, Option } from 'commander'
import { convertToNpy } from '../../formats/index.ts'
import type { ReaderLimits } from '../../formats/limits.ts'
import { type CommandIo, processIo, startByteProgress } from '../progress.ts'
import { addReaderLimitOptions, readerLimits } from './reader-limits.ts'

/** Options of `codebook convert`. */
export interface ConvertOptions extends ReaderLimits {
  format?: DatasetFormat
  dtype?: VectorDtype
}

/** Outcome of a conversion, for the summary line and for tests. */
export interface ConvertResult {
  stats: VectorStats
  idsFile: string | null
  seconds: number
}

/**
 * Runs `codebook convert FILE OUT.npy`: streams `file` into OUT.npy (and OUT.ids.npy when the
 * source has ids), a progress bar on stderr when it is a TTY, and a one-line summary on stdout.
 */
export async function runConvert(
  file: string,
  out: string,
  options: ConvertOptions,
  io: CommandIo = processIo(),
): Promise<ConvertResult> {
  const started = performance.now()
  let bar: ReturnType<typeof startByteProgress> | null = null
  let result: Awaited<ReturnType<typeof convertToNpy>>
  try {
    result = await convertToNpy(file, out, {
      format: options.format,
      dtype: options.dtype,
      ...readerLimits(options),
      onProgress: (p) => {
        bar ??= startByteProgress(io.stderr, p.totalBytes)
        bar.update(p.bytesRead, p.totalBytes, p.rows)
      },
    })
  } finally {
    ;(bar as ReturnType<typeof startByteProgress> | null)?.stop()
  }
  const seconds = (performance.now() - started) / 1000
  const { stats, idsFile } = result
  const mbps = stats.bytes / 1e6 / Math.max(seconds, 1e-9)
  io.stdout.write(
    `converted ${stats.n} rows × ${stats.d} (${stats.format} → ${stats.dtype}) to ${out}${idsFile ? ` + ${idsFile}` : ''} in ${seconds.toFixed(2)} s, ${mbps.toFixed(1)} MB/s${stats.notes?.length ? ` (${stats.notes.join('; ')})` : ''}\n`,
  )
  return { stats, idsFile, seconds }
}

/** Registers `codebook convert FILE OUT.npy [--format F] [--dtype float32|uint8] [--max-line-bytes S] [--max-fields N] [--max-expanded-bytes S]`. */
export function registerConvert(program: Command): void {
  const cmd = program
    .command('convert')
    .description(
      'Convert a vector file to .npy in one streaming pass. When the source has ids (HOG text), they go to a second file OUT.ids.npy ' +
        '(int32, n × 3: pictureId, rowId, colId) beside OUT.npy, so OUT.npy stays a plain matrix any NumPy tool can load; ' +
        'when picture ids are names (img0.jpg, Flickr ids, hashes), OUT.picture-names.txt lists them and pictureId is a line index into it; ' +
        'a stale OUT.ids.npy is removed when the source has no ids. Outputs are written to temporary files and renamed on success.',
    )
    .argument('<file>', 'input file (HOG text, .npy, .fvecs, .bvecs or CSV; .gz accepted)')
    .argument('<out>', 'output .npy file')
    .addOption(
      new Option('--format <format>', 'input format (default: from the name, then the content)').choices(
        datasetFormats,
      ),
    )
    .addOption(
      new Option(
        '--dtype <dtype>',
        'output dtype (default: the source dtype); uint8 requires integer values in [0, 255]',
      ).choices(['float32', 'uint8']),
    )
  addReaderLimitOptions(cmd).action(async (file: string, out: string, options: ConvertOptions) => {
    await runConvert(file, out, options)
  })
}
