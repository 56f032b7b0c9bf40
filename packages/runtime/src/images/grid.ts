import { CodebookError } from '../errors.ts'
import { decodeGreyBytes } from './load-image.ts'

/** One image cut from a grid (or loaded alone): greyscale pixels in [0, 1], row-major. */
export interface LabelledImage {
  pixels: Float32Array
  width: number
  height: number
  /** Class index, or null when the source carries no labels. */
  label: number | null
  /** Index of the image in its set: row-major over the grid (gridRow · columns + gridCol). */
  id: number
  /** Position of the cell in the grid (0 for images not cut from a grid). */
  gridRow: number
  gridCol: number
}

/** How to cut a grid image into cells. */
export interface GridOptions {
  cellWidth: number
  cellHeight: number
  /**
   * Grid rows per class, when the classes are laid out in bands of whole rows (digits.png: 5
   * rows per digit, so the label of grid row r is ⌊r / 5⌋). Omit for unlabelled cells.
   */
  rowsPerClass?: number
}

/**
 * Cuts a grid image (PNG/JPEG) into equal cells, row-major, each converted to greyscale in [0, 1].
 * Resolves to the cells and the size of the whole image.
 *
 * Throws `IMAGE_UNREADABLE` when the file cannot be decoded, `GRID_MISMATCH` when the image size is
 * not a whole multiple of the cell size, and `BAD_GRID_OPTIONS` for non-positive sizes.
 */
export async function loadGridImages(
  file: string,
  opts: GridOptions,
): Promise<{ images: LabelledImage[]; width: number; height: number }> {
  const { cellWidth, cellHeight, rowsPerClass } = opts
  for (const [name, v] of [
    ['cellWidth', cellWidth],
    ['cellHeight', cellHeight],
    ['rowsPerClass', rowsPerClass ?? 1],
  ] as const) {
    if (!Number.isInteger(v) || v <= 0) {
      throw new CodebookError('BAD_GRID_OPTIONS', `${file}: ${name} must be a positive integer, got ${v}`)
    }
  }
  const { bytes, width, height } = await decodeGreyBytes(file)
  if (width % cellWidth !== 0 || height % cellHeight !== 0) {
    throw new CodebookError(
      'GRID_MISMATCH',
      `${file}: image is ${width}×${height}, not a whole number of ${cellWidth}×${cellHeight} cells`,
    )
  }
  return { images: cutGrid(bytes, width, height, opts), width, height }
}

/** Cuts 8-bit greyscale `bytes` (width × height, already checked to tile exactly) into cells scaled to [0, 1]. */
export function cutGrid(
  bytes: Uint8Array,
  width: number,
  height: number,
  opts: GridOptions,
): LabelledImage[] {
  const { cellWidth, cellHeight, rowsPerClass } = opts
  const cols = width / cellWidth
  const rows = height / cellHeight
  const images: LabelledImage[] = []
  for (let gridRow = 0; gridRow < rows; gridRow++) {
    const label = rowsPerClass === undefined ? null : Math.floor(gridRow / rowsPerClass)
    for (let gridCol = 0; gridCol < cols; gridCol++) {
      const pixels = new Float32Array(cellWidth * cellHeight)
      for (let y = 0; y < cellHeight; y++) {
        const src = (gridRow * cellHeight + y) * width + gridCol * cellWidth
        for (let x = 0; x < cellWidth; x++) pixels[y * cellWidth + x] = bytes[src + x] / 255
      }
      images.push({
        pixels,
        width: cellWidth,
        height: cellHeight,
        label,
        id: images.length,
        gridRow,
        gridCol,
      })
    }
  }
  return images
}
