import { basename } from 'node:path'
import { CodebookError, UsageError } from '../../errors.ts'
import { detectFormat, formatFromName } from '../../formats/detect.ts'
import { openNpy } from '../../formats/index.ts'

/**
 * The shape of a command's `--data FILE` (`kmeans`, `column-stats`). Workers read rows at
 * random offsets, so it must be a .npy; a text, csv or .vecs file (gzip or not) gets a
 * `DATA_NOT_NPY` that gives the `codebook convert` command to run instead of the .npy reader's
 * "missing magic".
 */
export async function npyDataShape(file: string, command: string): Promise<{ n: number; d: number }> {
  try {
    const f = await openNpy(file)
    await f.close()
    return { n: f.n, d: f.d }
  } catch (err) {
    const format = await otherFormat(file, err)
    if (!format) throw err
    throw new UsageError(
      'DATA_NOT_NPY',
      `${file} is ${format}, not .npy; ${command} reads .npy: convert it first with \`codebook convert ${file} ${npyNameFor(file)}\``,
    )
  }
}

/** The non-.npy format `file` is in when opening it as .npy failed with `err`, else null. */
async function otherFormat(file: string, err: unknown): Promise<string | null> {
  if (!(err instanceof CodebookError) || err.code === 'FILE_NOT_FOUND') return null
  const format = formatFromName(file) ?? (await detectFormat(file).catch(() => null))
  if (!format || format === 'npy') return null
  return file.toLowerCase().endsWith('.gz') ? `${format} (gzip)` : format
}

/** `features.txt.gz` → `features.npy`, in the current directory. */
export function npyNameFor(file: string): string {
  const name = basename(file).replace(/\.gz$/i, '')
  const dot = name.lastIndexOf('.')
  return `${dot > 0 ? name.slice(0, dot) : name}.npy`
}
