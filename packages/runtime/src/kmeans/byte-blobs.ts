import { createRng } from '../random/rng.ts'

/** Options of {@link generateByteBlobs}. */
export interface ByteBlobOptions {
  n: number
  d: number
  /** Number of blob centres (≥ 1). */
  blobs: number
  seed: number
  /** Standard deviation inside a blob, in byte units; default 12. */
  sigma?: number
  /** Scale of the centres: each coordinate is |N(0, 1)| · scale; default 70. */
  scale?: number
}

/**
 * Seeded HOG-like uint8 data, n × d row-major: `blobs` centres with skewed non-negative
 * coordinates (|N(0, 1)| · scale, as histogram bins), points round(centre + σ·N(0, 1)) clipped to
 * [0, 255]. Clipping and rounding give the ties and extremes real byte features have.
 */
export function generateByteBlobs(options: ByteBlobOptions): Uint8Array {
  const { n, d, blobs, seed } = options
  const sigma = options.sigma ?? 12
  const scale = options.scale ?? 70
  const rng = createRng(seed)
  const centres = new Float64Array(blobs * d)
  for (let i = 0; i < centres.length; i++) centres[i] = Math.abs(rng.normal()) * scale
  const out = new Uint8Array(n * d)
  for (let i = 0; i < n; i++) {
    const b = rng.int(blobs)
    for (let t = 0; t < d; t++)
      out[i * d + t] = Math.min(255, Math.max(0, Math.round(centres[b * d + t] + sigma * rng.normal())))
  }
  return out
}
