import type { GreyImage } from '../images/load-image.ts'
import { type DenseHogParams, denseHog, hogLength } from './hog.ts'

/** Dense HOG of a set of images, ready for the HOG text or .npy writers. */
export interface HogSet {
  /** n × d, row-major. */
  vectors: Float32Array
  /** n × 3: (pictureId, rowId, colId) = (index of the image in the set, patch row, patch column in pixels). */
  ids: Int32Array
  n: number
  d: number
}

/**
 * Dense HOG of every image in `images`, concatenated in image order, patches row-major inside each
 * image. The picture id of a vector is the image's index in `images`. Images may differ in size.
 */
export function denseHogSet(images: readonly GreyImage[], params: DenseHogParams): HogSet {
  const d = hogLength(params)
  const perImage = images.map((image) => denseHog(image, params))
  const n = perImage.reduce((sum, r) => sum + r.positions.length / 2, 0)
  const vectors = new Float32Array(n * d)
  const ids = new Int32Array(n * 3)
  let row = 0
  perImage.forEach((r, picture) => {
    vectors.set(r.vectors, row * d)
    const count = r.positions.length / 2
    for (let k = 0; k < count; k++, row++) {
      ids[3 * row] = picture
      ids[3 * row + 1] = r.positions[2 * k]
      ids[3 * row + 2] = r.positions[2 * k + 1]
    }
  })
  return { vectors, ids, n, d }
}
