import { stat } from 'node:fs/promises'
import { type Command, InvalidArgumentError } from 'commander'
import { CodebookError, UsageError } from '../../errors.ts'
import { denseHogSet } from '../../features/dense-hog-set.ts'
import type { DenseHogParams } from '../../features/hog.ts'
import { idsPathFor, writeHogText, writeNpy } from '../../formats/index.ts'
import { type LabelledImage, loadGridImages } from '../../images/grid.ts'
import { loadImageFolder } from '../../images/image-folder.ts'
import { loadImage } from '../../images/load-image.ts'
import { type CommandIo, processIo } from '../progress.ts'

/** Options of `codebook hog`. */
export interface HogCommandOptions {
  patch: number
  stride: number
  cell: number
  bins: number
  blockCells?: number
  /** `WxH` cell size when the input is a grid image, e.g. `20x20`. */
  grid?: string
  rowsPerClass?: number
  out: string
}

/** Outcome of `codebook hog`, for the summary line and for tests. */
export interface HogCommandResult {
  images: number
  patches: number
  d: number
  /** Class names in label order (folder input), or label indices as strings (grid with --rows-per-class). */
  classes: string[]
  out: string
  idsFile: string | null
  seconds: number
}

/**
 * Runs `codebook hog IMAGES`: loads a grid image (with `grid`), one image file, or a folder of
 * images (one sub-folder per class), takes dense HOG of every image and writes HOG text
 * (ids = pictureId, rowId, colId) or `.npy` with the ids beside it in `OUT.ids.npy` (int32 n × 3).
 * Prints a one-line summary on stdout. Throws coded errors (exit code 2) on bad input or options.
 */
export async function runHog(
  input: string,
  options: HogCommandOptions,
  io: CommandIo = processIo(),
): Promise<HogCommandResult> {
  const started = performance.now()
  const output = outputKind(options.out)
  const params: DenseHogParams = {
    patch: options.patch,
    stride: options.stride,
    cell: options.cell,
    bins: options.bins,
    blockCells: options.blockCells ?? 2,
  }
  const { images, files, classes } = await loadInput(input, options)
  images.forEach((image, i) => {
    if (image.width < params.patch || image.height < params.patch) {
      throw new CodebookError(
        'IMAGE_TOO_SMALL',
        `${files[i] ?? input}: image ${image.id} is ${image.width}×${image.height}, smaller than the ${params.patch}-pixel patch`,
      )
    }
  })
  const set = denseHogSet(images, params)
  let idsFile: string | null = null
  if (output === 'npy') {
    idsFile = idsPathFor(options.out)
    await writeNpy(options.out, set.vectors, set.n, set.d)
    await writeNpy(idsFile, set.ids, set.n, 3)
  } else {
    await writeHogText(options.out, set.vectors, set.ids, set.d)
  }
  const seconds = (performance.now() - started) / 1000
  io.stdout.write(
    `hog: ${images.length} images${classes.length > 0 ? ` in ${classes.length} classes` : ''}, ${set.n} patches × d ${set.d} ` +
      `(patch ${params.patch}, stride ${params.stride}, cell ${params.cell}, bins ${params.bins}) → ${options.out}` +
      `${idsFile ? ` + ${idsFile}` : ''} in ${seconds.toFixed(2)} s\n`,
  )
  return { images: images.length, patches: set.n, d: set.d, classes, out: options.out, idsFile, seconds }
}

/** Registers `codebook hog IMAGES --out F.npy|F.txt|F.txt.gz [--patch --stride --cell --bins --grid WxH --rows-per-class N]`. */
export function registerHog(program: Command): void {
  program
    .command('hog')
    .description(
      'Dense HOG features of images: patch × patch windows every stride pixels, cells of cell × cell pixels, blocks of 2 × 2 cells ' +
        'normalised with L2-Hys, unsigned orientations in bins bins. IMAGES is a grid image (with --grid), one PNG/JPEG, or a folder ' +
        'of PNG/JPEG files with one sub-folder per class (labels = sub-folder names in sorted order). Writes HOG text ' +
        '(pictureId rowId colId f1 … fd; gzipped for .gz) or .npy with the ids in OUT.ids.npy (int32 n × 3).',
    )
    .argument('<images>', 'grid image, image file, or folder of images')
    .requiredOption('--out <file>', 'output: F.npy, F.txt or F.txt.gz')
    .option('--patch <n>', 'patch side in pixels', positiveInt, 8)
    .option('--stride <n>', 'patch stride in pixels', positiveInt, 4)
    .option('--cell <n>', 'cell side in pixels', positiveInt, 4)
    .option('--bins <n>', 'orientation bins over 0–180°', positiveInt, 8)
    .option('--block-cells <n>', 'block side in cells', positiveInt, 2)
    .option('--grid <WxH>', 'cut IMAGES, a grid image, into cells of W × H pixels')
    .option('--rows-per-class <n>', 'with --grid: grid rows per class (label = ⌊gridRow / n⌋)', positiveInt)
    .action(async (images: string, options: HogCommandOptions) => {
      await runHog(images, options)
    })
}

type LoadedInput = { images: LabelledImage[]; files: (string | undefined)[]; classes: string[] }

async function loadInput(input: string, options: HogCommandOptions): Promise<LoadedInput> {
  let isDirectory: boolean
  try {
    isDirectory = (await stat(input)).isDirectory()
  } catch {
    throw new CodebookError('FILE_NOT_FOUND', `${input}: no such file or folder`)
  }
  if (options.grid !== undefined) {
    if (isDirectory) throw new UsageError('BAD_USAGE', `${input}: --grid needs one grid image, not a folder`)
    const { cellWidth, cellHeight } = parseGrid(options.grid)
    const { images } = await loadGridImages(input, {
      cellWidth,
      cellHeight,
      rowsPerClass: options.rowsPerClass,
    })
    const labels = new Set(images.map((im) => im.label).filter((l) => l !== null))
    return { images, files: [], classes: [...labels].map(String) }
  }
  if (options.rowsPerClass !== undefined) throw new UsageError('BAD_USAGE', '--rows-per-class needs --grid')
  if (isDirectory) return loadImageFolder(input)
  const { pixels, width, height } = await loadImage(input)
  return {
    images: [{ pixels, width, height, label: null, id: 0, gridRow: 0, gridCol: 0 }],
    files: [input],
    classes: [],
  }
}

function parseGrid(grid: string): { cellWidth: number; cellHeight: number } {
  const m = /^(\d+)x(\d+)$/i.exec(grid.trim())
  const cellWidth = Number(m?.[1])
  const cellHeight = Number(m?.[2])
  if (!m || cellWidth <= 0 || cellHeight <= 0) {
    throw new UsageError('BAD_USAGE', `--grid ${grid}: expected the cell size as WxH in pixels, e.g. 20x20`)
  }
  return { cellWidth, cellHeight }
}

function outputKind(out: string): 'npy' | 'text' {
  if (out.endsWith('.npy')) return 'npy'
  if (out.endsWith('.txt') || out.endsWith('.txt.gz')) return 'text'
  throw new UsageError('BAD_USAGE', `--out ${out}: expected a .npy, .txt or .txt.gz file`)
}

function positiveInt(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidArgumentError(`expected a positive integer, got ${value}`)
  }
  return n
}
