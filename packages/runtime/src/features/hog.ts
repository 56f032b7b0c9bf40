import { CodebookError } from '../errors.ts'
import type { GreyImage } from '../images/load-image.ts'

/**
 * Histogram of Oriented Gradients, Dalal–Triggs style, kept deliberately simple so every number can
 * be checked by hand:
 *
 * - **Gradients**: centred differences [-1, 0, 1] in x and y, gx = I(x+1, y) − I(x−1, y) and
 *   gy = I(x, y+1) − I(x, y−1). Outside the image the border pixel is replicated (clamp), so at the
 *   border the difference becomes one-sided, e.g. gx(0, y) = I(1, y) − I(0, y). Dense patches take
 *   their gradients from the whole image, so a patch sees its real neighbours.
 * - **Orientation convention**: image y grows *downwards*, and θ = atan2(gy, gx) folded into [0°, 180°)
 *   (unsigned: a dark→light and a light→dark edge are the same). So θ is measured clockwise on
 *   screen: 0° is a horizontal gradient (a vertical edge), 90° a vertical gradient (a horizontal
 *   edge), 45° an image getting brighter towards the bottom-right, 135° brighter towards the top-right.
 *   This is OpenCV's convention too.
 * - **Bins**: `bins` bins, bin i centred on i · 180°/bins (so 0° falls exactly in bin 0). A
 *   gradient's magnitude √(gx² + gy²) is split linearly between the two nearest bin centres,
 *   wrapping around (bin bins−1 neighbours bin 0). No spatial (trilinear) interpolation and no
 *   Gaussian block window: each pixel votes only into its own cell.
 * - **Cells** of `cell` × `cell` pixels; **blocks** of `blockCells` × `blockCells` cells at a stride of
 *   one cell; each block normalised with **L2-Hys** (see {@link l2Hys}).
 * - **Layout**: blocks row-major over block positions, inside a block cells row-major, inside a cell
 *   the bins in order.
 */

/** Threshold of L2-Hys: after the first L2 normalisation no component may exceed it (Dalal & Triggs, 2005). */
export const L2HYS_CLIP = 0.2

/**
 * Default ε of the block normalisation v / √(‖v‖² + ε²). Intensities are in [0, 1], so one grey
 * level is 1/255 ≈ 0.004; ε = 1e-3 keeps near-flat blocks (sensor noise, JPEG ringing) from being
 * blown up to unit length while leaving any real edge (norm ≫ ε) effectively unit length.
 */
export const DEFAULT_HOG_EPSILON = 1e-3

/** Cell and block parameters shared by a single window and dense patches. */
export interface HogParams {
  /** Cell side in pixels. */
  cell: number
  /** Orientation bins over [0°, 180°). */
  bins: number
  /** Block side in cells (default 2). */
  blockCells?: number
  /** ε of the L2-Hys normalisation (default {@link DEFAULT_HOG_EPSILON}). */
  epsilon?: number
}

/** Parameters of dense HOG: square `patch` × `patch` windows every `stride` pixels. */
export interface DenseHogParams extends HogParams {
  patch: number
  stride: number
}

/** Dense HOG of one image: n = positions.length / 2 descriptors of length d. */
export interface DenseHogResult {
  /** n × d, row-major. */
  vectors: Float32Array
  d: number
  /** n × 2: (row, col) of each patch's top-left pixel. */
  positions: Int32Array
}

/**
 * Length of the HOG descriptor of a `patch` × `patch` window. With c = patch / cell cells per side
 * and b = blockCells, there are c − b + 1 block positions per side, so
 *
 *     length = (c − b + 1)² · b² · bins
 *
 * e.g. patch 8, cell 4, bins 8 (b = 2): 1 block × 4 cells × 8 bins = 32; patch 16, cell 4, bins 9:
 * 9 blocks × 4 cells × 9 bins = 324; the papers' 512-d vectors come from patch 20, cell 4, bins 8:
 * 16 blocks × 4 cells × 8 bins. Throws `BAD_HOG_PARAMS` when the parameters do not fit.
 */
export function hogLength(params: {
  patch: number
  cell: number
  bins: number
  blockCells?: number
}): number {
  checkHogParams(params, 'hogLength')
  checkWindow(params.patch, params.patch, params, 'hogLength')
  return windowLength(params.patch, params.patch, params)
}

/**
 * HOG descriptor of one window: the whole `width` × `height` image (both multiples of `cell`).
 * Length (cellsX − b + 1)(cellsY − b + 1) · b² · bins, which is {@link hogLength} for a square window.
 */
export function hogDescriptor(
  pixels: Float32Array,
  width: number,
  height: number,
  params: HogParams,
): Float32Array {
  checkHogParams(params, 'hogDescriptor')
  checkImage(pixels, width, height, 'hogDescriptor')
  checkWindow(width, height, params, 'hogDescriptor')
  const votes = gradientVotes(pixels, width, height, params.bins)
  const cellsX = width / params.cell
  const cellsY = height / params.cell
  const hist = new Float32Array(cellsX * cellsY * params.bins)
  accumulateCells(votes, width, 0, 0, cellsX, cellsY, params.cell, params.bins, hist)
  const out = new Float32Array(windowLength(width, height, params))
  normaliseBlocks(hist, cellsX, cellsY, params, out, 0)
  return out
}

/**
 * Dense HOG: a descriptor of every `patch` × `patch` window whose top-left corner is at
 * (row, col) = (i · stride, j · stride) and which lies wholly inside the image, row-major over
 * (i, j). d = {@link hogLength}. A 20 × 20 image with patch 8, stride 4 gives 4 × 4 = 16 patches.
 * Throws `BAD_HOG_PARAMS` when the patch is not a multiple of the cell, is larger than the image,
 * or the stride is not a positive integer.
 */
export function denseHog(image: GreyImage, params: DenseHogParams): DenseHogResult {
  const { pixels, width, height } = image
  const { patch, stride, cell, bins } = params
  checkHogParams(params, 'denseHog')
  checkImage(pixels, width, height, 'denseHog')
  checkWindow(patch, patch, params, 'denseHog')
  if (!Number.isInteger(stride) || stride <= 0)
    badParams('denseHog', `stride must be a positive integer, got ${stride}`)
  if (patch > width || patch > height) {
    badParams('denseHog', `patch ${patch} is larger than the ${width}×${height} image`)
  }
  const perRow = Math.floor((width - patch) / stride) + 1
  const perCol = Math.floor((height - patch) / stride) + 1
  const n = perRow * perCol
  const d = windowLength(patch, patch, params)
  const c = patch / cell
  const votes = gradientVotes(pixels, width, height, bins)
  const hist = new Float32Array(c * c * bins)
  const vectors = new Float32Array(n * d)
  const positions = new Int32Array(n * 2)
  let k = 0
  for (let i = 0; i < perCol; i++) {
    for (let j = 0; j < perRow; j++, k++) {
      const row = i * stride
      const col = j * stride
      positions[2 * k] = row
      positions[2 * k + 1] = col
      hist.fill(0)
      accumulateCells(votes, width, col, row, c, c, cell, bins, hist)
      normaliseBlocks(hist, c, c, params, vectors, k * d)
    }
  }
  return { vectors, d, positions }
}

/**
 * Un-normalised cell histograms of a whole window: (height / cell) × (width / cell) cells,
 * row-major, `bins` values each. Exposed so tests can check the votes before normalisation.
 */
export function cellHistograms(
  pixels: Float32Array,
  width: number,
  height: number,
  params: { cell: number; bins: number },
): Float32Array {
  checkHogParams(params, 'cellHistograms')
  checkImage(pixels, width, height, 'cellHistograms')
  checkWindow(width, height, { ...params, blockCells: 1 }, 'cellHistograms')
  const cellsX = width / params.cell
  const cellsY = height / params.cell
  const hist = new Float32Array(cellsX * cellsY * params.bins)
  accumulateCells(
    gradientVotes(pixels, width, height, params.bins),
    width,
    0,
    0,
    cellsX,
    cellsY,
    params.cell,
    params.bins,
    hist,
  )
  return hist
}

/**
 * L2-Hys in place on v = out[offset, offset + length): v ← v / √(‖v‖² + ε²), then clip every
 * component at {@link L2HYS_CLIP}, then v ← v / √(‖v‖² + ε²) again. A zero block stays zero (no 0/0).
 */
export function l2Hys(
  out: Float32Array,
  offset: number,
  length: number,
  epsilon = DEFAULT_HOG_EPSILON,
): void {
  const eps2 = epsilon * epsilon
  let sum = 0
  for (let t = offset; t < offset + length; t++) sum += out[t] * out[t]
  let scale = 1 / Math.sqrt(sum + eps2)
  sum = 0
  for (let t = offset; t < offset + length; t++) {
    const v = Math.min(out[t] * scale, L2HYS_CLIP)
    out[t] = v
    sum += v * v
  }
  scale = 1 / Math.sqrt(sum + eps2)
  for (let t = offset; t < offset + length; t++) out[t] *= scale
}

/** Each pixel's vote: magnitude·(1 − f) to bin `bin0[p]`, magnitude·f to the next bin (cyclically). */
interface PixelVotes {
  bin0: Uint16Array
  weight0: Float32Array
  weight1: Float32Array
}

/** Gradients (centred, border replicated) and their split orientation votes, for every pixel. */
function gradientVotes(pixels: Float32Array, width: number, height: number, bins: number): PixelVotes {
  const n = width * height
  const bin0 = new Uint16Array(n)
  const weight0 = new Float32Array(n)
  const weight1 = new Float32Array(n)
  const binsPerRadian = bins / Math.PI
  for (let y = 0; y < height; y++) {
    const up = (y > 0 ? y - 1 : 0) * width
    const down = (y < height - 1 ? y + 1 : y) * width
    const here = y * width
    for (let x = 0; x < width; x++) {
      const left = x > 0 ? x - 1 : 0
      const right = x < width - 1 ? x + 1 : x
      const gx = pixels[here + right] - pixels[here + left]
      const gy = pixels[down + x] - pixels[up + x]
      const mag = Math.sqrt(gx * gx + gy * gy)
      if (mag === 0) continue
      // atan2 is in (−π, π]; adding π to negatives folds it onto [0, π] (unsigned orientation).
      let theta = Math.atan2(gy, gx)
      if (theta < 0) theta += Math.PI
      const pos = theta * binsPerRadian
      let b = Math.floor(pos)
      const f = pos - b
      // θ = π (or a rounding just below it) is the same orientation as 0.
      if (b >= bins) b -= bins
      const p = here + x
      bin0[p] = b
      weight0[p] = mag * (1 - f)
      weight1[p] = mag * f
    }
  }
  return { bin0, weight0, weight1 }
}

/** Adds the votes of the cellsX × cellsY cells whose top-left pixel is (x0, y0) into `hist`. */
function accumulateCells(
  votes: PixelVotes,
  width: number,
  x0: number,
  y0: number,
  cellsX: number,
  cellsY: number,
  cell: number,
  bins: number,
  hist: Float32Array,
): void {
  const { bin0, weight0, weight1 } = votes
  for (let y = 0; y < cellsY * cell; y++) {
    const rowBase = ((y / cell) | 0) * cellsX
    const src = (y0 + y) * width + x0
    for (let x = 0; x < cellsX * cell; x++) {
      const p = src + x
      const w0 = weight0[p]
      const w1 = weight1[p]
      if (w0 === 0 && w1 === 0) continue
      const base = (rowBase + ((x / cell) | 0)) * bins
      const b = bin0[p]
      hist[base + b] += w0
      hist[base + (b + 1 === bins ? 0 : b + 1)] += w1
    }
  }
}

/** Copies every block of `hist` (cellsX × cellsY cells) into `out` from `offset` and L2-Hys-normalises it. */
function normaliseBlocks(
  hist: Float32Array,
  cellsX: number,
  cellsY: number,
  params: HogParams,
  out: Float32Array,
  offset: number,
): void {
  const b = params.blockCells ?? 2
  const { bins } = params
  const blockLength = b * b * bins
  let o = offset
  for (let by = 0; by + b <= cellsY; by++) {
    for (let bx = 0; bx + b <= cellsX; bx++) {
      const start = o
      for (let cy = 0; cy < b; cy++) {
        for (let cx = 0; cx < b; cx++) {
          const base = ((by + cy) * cellsX + bx + cx) * bins
          for (let t = 0; t < bins; t++) out[o++] = hist[base + t]
        }
      }
      l2Hys(out, start, blockLength, params.epsilon ?? DEFAULT_HOG_EPSILON)
    }
  }
}

function windowLength(width: number, height: number, params: HogParams): number {
  const b = params.blockCells ?? 2
  return (width / params.cell - b + 1) * (height / params.cell - b + 1) * b * b * params.bins
}

function badParams(where: string, reason: string): never {
  throw new CodebookError('BAD_HOG_PARAMS', `${where}: ${reason}`)
}

function checkHogParams(params: HogParams, where: string): void {
  const { cell, bins, blockCells = 2, epsilon = DEFAULT_HOG_EPSILON } = params
  if (!Number.isInteger(cell) || cell <= 0) badParams(where, `cell must be a positive integer, got ${cell}`)
  // Uint16Array holds the bin index; nobody needs more than a few dozen bins.
  if (!Number.isInteger(bins) || bins <= 0 || bins > 360) {
    badParams(where, `bins must be an integer in [1, 360], got ${bins}`)
  }
  if (!Number.isInteger(blockCells) || blockCells <= 0) {
    badParams(where, `blockCells must be a positive integer, got ${blockCells}`)
  }
  if (!(epsilon > 0) || !Number.isFinite(epsilon))
    badParams(where, `epsilon must be positive, got ${epsilon}`)
}

/** A window must be a whole number of cells and hold at least one block. */
function checkWindow(width: number, height: number, params: HogParams, where: string): void {
  const { cell, blockCells = 2 } = params
  for (const [name, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(v) || v <= 0 || v % cell !== 0) {
      badParams(where, `patch/window ${name} ${v} is not a positive multiple of the cell size ${cell}`)
    }
  }
  if (width / cell < blockCells || height / cell < blockCells) {
    badParams(
      where,
      `a ${width}×${height} window of ${cell}-pixel cells cannot hold a block of ${blockCells}×${blockCells} cells`,
    )
  }
}

function checkImage(pixels: Float32Array, width: number, height: number, where: string): void {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    badParams(where, `image size ${width}×${height} is not positive`)
  }
  if (pixels.length !== width * height) {
    badParams(where, `image holds ${pixels.length} pixels, expected ${width}×${height} = ${width * height}`)
  }
}
