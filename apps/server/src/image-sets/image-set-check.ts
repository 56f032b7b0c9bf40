import { CodebookError, UsageError } from '@codebook/runtime/errors'
import { openZipArchive, zipLayout } from '@codebook/runtime/images'
import sharp from 'sharp'

/** Pixel budgets of an image-set check: they bound the check and every later evaluation of the set. */
export interface PixelBudget {
  /** Most pixels of one image (a grid counts as one image): `IMAGE_TOO_LARGE` above. */
  maxImagePixels: number
  /** Most pixels of all images of a set: `IMAGE_SET_TOO_LARGE` above. */
  maxSetPixels: number
}

/**
 * Defaults: 50 M pixels per image (a 8,660 × 5,773 photo; 200 MB as the evaluation's float32)
 * and 256 M per set (1 GiB as float32, what an evaluation holds). The digits demo is 2 M.
 */
export const PIXEL_BUDGET: PixelBudget = { maxImagePixels: 50_000_000, maxSetPixels: 256_000_000 }

/** What to check: the uploaded file as the query describes it. */
export type ImageSetCheckJob = (
  | { kind: 'grid'; file: string; cellWidth: number; cellHeight: number; rowsPerClass: number }
  | { kind: 'zip'; file: string }
) & { budget: PixelBudget }

/** What the service stores of a checked set. */
export interface ImageSetSummary {
  /** Class names in label order. */
  classes: string[]
  /** Images per class, in label order. */
  classCounts: number[]
  /** Smallest side of any image (HOG patches must fit). */
  minSide: number
  /** Grid: cells per grid row; zip: 0. */
  columns: number
  /** Zip: the image entries in label order (the indices evaluations report); grid: empty. */
  entries: string[]
}

/**
 * Checks an image set one image at a time, as `loadLabelledImages` would load it but holding no
 * pixels: each image's header is read first (sharp metadata) and refused by its dimensions before
 * anything is decoded, then the image is decoded once to prove it decodes, and dropped.
 *
 * Throws the runtime's codes (`BAD_ZIP`, `ZIP_UNSAFE_PATH`, `NO_CLASS_FOLDERS`, `ZIP_BAD_LAYOUT`,
 * `NOT_AN_IMAGE`, `ZIP_ENTRY_TOO_LARGE`), `IMAGE_UNREADABLE` (grid) / `UNDECODABLE_IMAGE` (zip entry),
 * `GRID_MISMATCH`, `EVAL_ONE_CLASS`, and `IMAGE_TOO_LARGE` / `IMAGE_SET_TOO_LARGE` naming the entry.
 */
export async function checkImageSet(job: ImageSetCheckJob): Promise<ImageSetSummary> {
  sharp.cache(false)
  return job.kind === 'grid' ? checkGrid(job) : checkZip(job)
}

async function checkGrid(job: Extract<ImageSetCheckJob, { kind: 'grid' }>): Promise<ImageSetSummary> {
  const { file, cellWidth, cellHeight, rowsPerClass } = job
  const unreadable = (err: unknown) =>
    new CodebookError('IMAGE_UNREADABLE', `${file}: cannot decode image (${(err as Error).message})`, {
      cause: err,
    })
  const { width, height } = await dimensions(file).catch((err) => {
    throw unreadable(err)
  })
  checkImagePixels(job.budget, width, height, file)
  if (width % cellWidth !== 0 || height % cellHeight !== 0)
    throw new CodebookError(
      'GRID_MISMATCH',
      `${file}: image is ${width}×${height}, not a whole number of ${cellWidth}×${cellHeight} cells`,
    )
  await decode(file, job.budget).catch((err) => {
    throw unreadable(err)
  })
  const columns = width / cellWidth
  const rows = height / cellHeight
  const classCounts = Array.from({ length: Math.ceil(rows / rowsPerClass) }, (_, c) => {
    const classRows = Math.min(rowsPerClass, rows - c * rowsPerClass)
    return classRows * columns
  })
  const classes = classCounts.map((_, c) => String(c))
  needTwoClasses(classes, file)
  return { classes, classCounts, minSide: Math.min(cellWidth, cellHeight), columns, entries: [] }
}

async function checkZip(job: Extract<ImageSetCheckJob, { kind: 'zip' }>): Promise<ImageSetSummary> {
  const { file, budget } = job
  const zip = await openZipArchive(file)
  try {
    const { classes, entries } = zipLayout(file, zip.entries)
    needTwoClasses(classes, file)
    const classCounts = classes.map(() => 0)
    let minSide = Number.POSITIVE_INFINITY
    let setPixels = 0
    for (const { name, label } of entries) {
      const bytes = await zip.read(name)
      const undecodable = (err: unknown) =>
        new CodebookError(
          'UNDECODABLE_IMAGE',
          `${file}: entry '${name}' is not a decodable image (${(err as Error).message})`,
          { cause: err },
        )
      const { width, height } = await dimensions(bytes).catch((err) => {
        throw undecodable(err)
      })
      checkImagePixels(budget, width, height, `${file}: entry '${name}'`)
      setPixels += width * height
      if (setPixels > budget.maxSetPixels)
        throw new CodebookError(
          'IMAGE_SET_TOO_LARGE',
          `${file}: the images up to entry '${name}' hold ${setPixels} pixels, more than the ${budget.maxSetPixels} a set may hold`,
        )
      await decode(bytes, budget).catch((err) => {
        throw undecodable(err)
      })
      classCounts[label]!++
      minSide = Math.min(minSide, width, height)
    }
    return { classes, classCounts, minSide, columns: 0, entries: entries.map((e) => e.name) }
  } finally {
    zip.close()
  }
}

/** Width and height from the image's header only (nothing decoded). */
async function dimensions(input: string | Buffer): Promise<{ width: number; height: number }> {
  const { width, height } = await sharp(input).metadata()
  if (!width || !height) throw new Error('no image dimensions in the header')
  return { width, height }
}

/** Decodes the whole image once (greyscale bytes), so a corrupt body fails here, not in an evaluation. */
async function decode(input: string | Buffer, budget: PixelBudget): Promise<void> {
  // limitInputPixels: sharp refuses by the header again, should the two reads ever disagree.
  await sharp(input, { limitInputPixels: budget.maxImagePixels }).greyscale().raw().toBuffer()
}

function checkImagePixels(budget: PixelBudget, width: number, height: number, what: string): void {
  if (width * height > budget.maxImagePixels)
    throw new CodebookError(
      'IMAGE_TOO_LARGE',
      `${what} is ${width}×${height} (${width * height} pixels), more than the ${budget.maxImagePixels} one image may have`,
    )
}

function needTwoClasses(classes: string[], file: string): void {
  if (classes.length < 2)
    throw new UsageError('EVAL_ONE_CLASS', `${file}: found ${classes.length} class(es), need at least 2`)
}
