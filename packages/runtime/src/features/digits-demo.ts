import { writeHogText } from '../formats/hog-text.ts'
import { loadGridImages } from '../images/grid.ts'
import { denseHogSet } from './dense-hog-set.ts'

/** Side of one digit in digits.png, in pixels. */
export const DIGIT_CELL = 20
/** Grid rows per digit class in digits.png (rows 0–4 are zeros, 5–9 ones, …). */
export const DIGIT_ROWS_PER_CLASS = 5

/** Digits per class in digits.png: 5 grid rows × 100 columns. */
export const DIGITS_PER_CLASS = 500

/**
 * The digit (class label) of a picture of the demo dataset: pictures are numbered row-major over
 * the 50 × 100 grid and each digit fills 5 whole rows, so label = ⌊pictureId / 500⌋.
 */
export function digitLabel(pictureId: number): number {
  return Math.floor(pictureId / DIGITS_PER_CLASS)
}

/** Dense-HOG parameters of the digits demo; every field defaults to the demo's value. */
export interface DigitsDemoOptions {
  /** Patch side in pixels (default 8). */
  patch?: number
  /** Patch stride in pixels (default 4). */
  stride?: number
  /** Cell side in pixels (default 4). */
  cell?: number
  /** Orientation bins (default 8). */
  bins?: number
}

/**
 * Builds the demo dataset from OpenCV's digits.png: cuts it into its 5,000 digits of 20 × 20
 * pixels, takes dense HOG of every digit, and writes HOG text (`pictureId rowId colId f1 … fd`,
 * pictureId = digit index row-major over the grid, rowId/colId = patch position in pixels),
 * gzipped when `outFile` ends in `.gz`, atomically (nothing is left behind on failure).
 *
 * With the defaults (patch 8, stride 4, cell 4, bins 8) that is 16 patches per digit, so
 * n = 80,000 vectors of d = 32. Labels are not written: see {@link digitLabel}.
 */
export async function buildDigitsDemo(
  pngPath: string,
  outFile: string,
  opts: DigitsDemoOptions = {},
): Promise<{ n: number; d: number }> {
  const params = {
    patch: opts.patch ?? 8,
    stride: opts.stride ?? 4,
    cell: opts.cell ?? 4,
    bins: opts.bins ?? 8,
  }
  const { images } = await loadGridImages(pngPath, {
    cellWidth: DIGIT_CELL,
    cellHeight: DIGIT_CELL,
    rowsPerClass: DIGIT_ROWS_PER_CLASS,
  })
  const { vectors, ids, n, d } = denseHogSet(images, params)
  await writeHogText(outFile, vectors, ids, d)
  return { n, d }
}
