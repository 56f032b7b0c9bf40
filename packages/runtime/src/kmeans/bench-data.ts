import { createRng } from '../random/rng.ts'
import { generateByteBlobs } from './byte-blobs.ts'
import { randomInit, sampleDistinctIndices } from './init/random-init.ts'

/** Options of {@link generateBlobs}. */
export interface BlobOptions {
  n: number
  d: number
  /** Number of Gaussian blobs; 0 gives plain standard-normal data. */
  blobs: number
  seed: number
  /** Spread of blob centres (uniform in [−spread, spread]); default 10. */
  spread?: number
  /** Standard deviation inside a blob; default 1. */
  sigma?: number
}

/**
 * Seeded synthetic data, n × d float32: points drawn around `blobs` random centres (or
 * standard normal when blobs = 0). Continuous values, so exact distance ties do not occur.
 * Also returns which blob each point came from.
 */
export function generateBlobs(options: BlobOptions): {
  points: Float32Array
  blobOf: Int32Array
  centres: Float32Array
} {
  const { n, d, blobs, seed } = options
  const spread = options.spread ?? 10
  const sigma = options.sigma ?? 1
  const rng = createRng(seed)
  const centres = new Float32Array(blobs * d)
  for (let i = 0; i < centres.length; i++) centres[i] = (2 * rng.next() - 1) * spread
  const points = new Float32Array(n * d)
  const blobOf = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    const b = blobs > 0 ? rng.int(blobs) : 0
    blobOf[i] = b
    for (let t = 0; t < d; t++)
      points[i * d + t] = (blobs > 0 ? centres[b * d + t] : 0) + sigma * rng.normal()
  }
  return { points, blobOf, centres }
}

/**
 * The data and initial centroids of a K-means benchmark, reproducible from its arguments:
 * {@link generateBlobs} (spread 3, σ 1; `blobs` 0 = standard normal) and k distinct random rows
 * drawn with seed + 1. `bench/kmeans/kernel-bench.ts`, `codebook bench kmeans` and
 * `test/bench/anchors` all use it, so every implementation sees the same points and init.
 * `checksum` (every 997th value summed) shows a mismatch in generation.
 */
export function benchData(
  n: number,
  d: number,
  k: number,
  blobs: number,
  seed: number,
): { points: Float32Array; init: Float32Array; checksum: number } {
  const { points } = generateBlobs({ n, d, blobs, seed, spread: 3, sigma: 1 })
  const { centroids } = randomInit(points, n, d, k, createRng(seed + 1))
  let checksum = 0
  for (let i = 0; i < points.length; i += 997) checksum += points[i]
  return { points, init: centroids, checksum }
}

/**
 * {@link benchData} for uint8 data (`bench kmeans --dtype uint8`): HOG-like bytes
 * ({@link generateByteBlobs}, `blobs` centres, at least 1) and k distinct random rows drawn with
 * seed + 1 (the same rows `randomInit` picks), as float32 centroids. The points stay bytes: the
 * driver never holds them widened.
 */
export function byteBenchData(
  n: number,
  d: number,
  k: number,
  blobs: number,
  seed: number,
): { points: Uint8Array; init: Float32Array } {
  const points = generateByteBlobs({ n, d, blobs: Math.max(1, blobs), seed })
  const rows = sampleDistinctIndices(n, k, createRng(seed + 1))
  const init = new Float32Array(k * d)
  for (let j = 0; j < k; j++) for (let t = 0; t < d; t++) init[j * d + t] = points[rows[j]! * d + t]!
  return { points, init }
}
