import { UsageError } from '../errors.ts'

/** How a histogram is normalised. */
export type HistogramNorm = 'l1' | 'l2' | 'none'

function normalise(h: Float32Array, o: number, k: number, norm: HistogramNorm): void {
  if (norm === 'none') return
  let s = 0
  for (let j = 0; j < k; j++) s += norm === 'l1' ? Math.abs(h[o + j]) : h[o + j] * h[o + j]
  if (s === 0) return
  const scale = norm === 'l1' ? 1 / s : 1 / Math.sqrt(s)
  for (let j = 0; j < k; j++) h[o + j] *= scale
}

/**
 * Hard-assignment bag-of-visual-words: image i's histogram counts the patches of image i
 * assigned to each word. `patchImage[p]` is the image of patch p, `patchWord[p]` its word.
 * Returns images × k, row-major, normalised per image.
 */
export function encodeBagOfWords(
  patchWord: Int32Array,
  patchImage: Int32Array,
  images: number,
  k: number,
  norm: HistogramNorm = 'l1',
): Float32Array {
  if (patchWord.length !== patchImage.length)
    throw new UsageError('BOW_BAD_SHAPE', `${patchWord.length} words for ${patchImage.length} patches`)
  const h = new Float32Array(images * k)
  for (let p = 0; p < patchWord.length; p++) h[patchImage[p] * k + patchWord[p]] += 1
  for (let i = 0; i < images; i++) normalise(h, i * k, k, norm)
  return h
}

/**
 * Soft "triangle" encoding (Coates, Lee & Ng, AISTATS 2011): a patch votes
 * max(0, μ − z_j) for word j, where z_j is its Euclidean distance to word j and μ the mean of
 * those distances, so only words nearer than average get weight. Votes are summed per image.
 */
export function encodeTriangle(
  patches: Float32Array,
  patchImage: Int32Array,
  images: number,
  centroids: Float32Array,
  d: number,
  norm: HistogramNorm = 'l2',
): Float32Array {
  const k = centroids.length / d
  const h = new Float32Array(images * k)
  const z = new Float64Array(k)
  for (let p = 0; p < patchImage.length; p++) {
    let mean = 0
    for (let j = 0; j < k; j++) {
      let s = 0
      for (let t = 0; t < d; t++) {
        const diff = patches[p * d + t] - centroids[j * d + t]
        s += diff * diff
      }
      z[j] = Math.sqrt(s)
      mean += z[j]
    }
    mean /= k
    const o = patchImage[p] * k
    for (let j = 0; j < k; j++) if (z[j] < mean) h[o + j] += mean - z[j]
  }
  for (let i = 0; i < images; i++) normalise(h, i * k, k, norm)
  return h
}
