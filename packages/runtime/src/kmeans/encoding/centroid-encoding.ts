import { runEncodings } from '@codebook/shared'
import { UsageError } from '../../errors.ts'
import { float16BitsToFloat32, float32ToFloat16Bits } from './float16.ts'

/** How centroids travel in the broadcast: float32 (exact), float16 (half the bytes) or uint8 (a quarter, plus a header). */
export type CentroidEncoding = (typeof runEncodings)[number]

/** Every encoding, for option parsing. */
export const CENTROID_ENCODINGS: readonly CentroidEncoding[] = runEncodings

/**
 * The stated worst-case error of each encoding, per decoded value v of an original x:
 * - float32: 0 (identity);
 * - float16: |v − x| ≤ 2⁻¹¹·|x| for 2⁻¹⁴ ≤ |x| ≤ 65504, ≤ 2⁻²⁵ below; larger |x| is refused;
 * - uint8: |v − x| ≤ scale_t / 2 + 2⁻²⁴·|x| on dimension t, where scale_t = (max_t − min_t) / 255
 *   over the k centroids (the second term is the float32 rounding of the decoded value).
 */
export const CENTROID_ENCODING_ERROR: Record<CentroidEncoding, string> = {
  float32: 'exact',
  float16: 'relative 2^-11 for |x| in [2^-14, 65504]; absolute 2^-25 below; |x| >= 65520 refused',
  uint8: 'absolute scale_t/2 (+ float32 rounding) per dimension t, scale_t = (max_t - min_t) / 255',
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

function checkEncoding(enc: string): asserts enc is CentroidEncoding {
  if (!(CENTROID_ENCODINGS as readonly string[]).includes(enc)) {
    throw new UsageError(
      'BAD_CENTROID_ENCODING',
      `centroid encoding "${enc}" is not one of ${CENTROID_ENCODINGS.join(', ')}`,
    )
  }
}

/** Bytes of k × d centroids in an encoding: 4kd, 2kd, or 8d (per-dimension min and scale, float32) + kd. */
export function encodedBytes(k: number, d: number, enc: CentroidEncoding): number {
  checkEncoding(enc)
  if (enc === 'float32') return 4 * k * d
  if (enc === 'float16') return 2 * k * d
  return 8 * d + k * d
}

/**
 * Encodes k × d row-major centroids. All multi-byte values are little-endian.
 * uint8 layout: d float32 minima, d float32 scales, then k·d bytes q with x ≈ min_t + q·scale_t.
 */
export function encodeCentroids(c: Float32Array, k: number, d: number, enc: CentroidEncoding): Uint8Array {
  checkEncoding(enc)
  const count = k * d
  if (c.length < count)
    throw new UsageError(
      'BAD_CENTROID_SHAPE',
      `encodeCentroids: ${c.length} values cannot hold k = ${k} × d = ${d}`,
    )
  const out = new Uint8Array(encodedBytes(k, d, enc))
  const view = new DataView(out.buffer)
  if (enc === 'float32') {
    if (LITTLE_ENDIAN) out.set(new Uint8Array(c.buffer, c.byteOffset, count * 4))
    else for (let i = 0; i < count; i++) view.setFloat32(i * 4, c[i], true)
    return out
  }
  if (enc === 'float16') {
    for (let i = 0; i < count; i++) view.setUint16(i * 2, float32ToFloat16Bits(c[i]), true)
    return out
  }
  for (let t = 0; t < d; t++) {
    let lo = Number.POSITIVE_INFINITY
    let hi = Number.NEGATIVE_INFINITY
    for (let j = 0; j < k; j++) {
      const v = c[j * d + t]
      if (v < lo) lo = v
      if (v > hi) hi = v
    }
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
      throw new UsageError(
        'CENTROID_ENCODING_RANGE',
        `uint8 encoding: dimension ${t} holds a non-finite value`,
      )
    }
    let scale = Math.fround((hi - lo) / 255)
    // The stored (float32) scale must cover the range, or the top values would clamp at 255.
    while (scale * 255 < hi - lo) scale = nextFloat32Up(scale)
    view.setFloat32(t * 4, lo, true)
    view.setFloat32((d + t) * 4, scale, true)
    const body = 8 * d
    for (let j = 0; j < k; j++) {
      const q = scale > 0 ? Math.round((c[j * d + t] - lo) / scale) : 0
      out[body + j * d + t] = Math.min(255, Math.max(0, q))
    }
  }
  return out
}

/** Decodes bytes written by {@link encodeCentroids} back to k × d float32 centroids. */
export function decodeCentroids(
  bytes: Uint8Array,
  k: number,
  d: number,
  enc: CentroidEncoding,
): Float32Array {
  checkEncoding(enc)
  const expected = encodedBytes(k, d, enc)
  if (bytes.length !== expected) {
    throw new UsageError(
      'BAD_CENTROID_BYTES',
      `decodeCentroids: ${enc} centroids k = ${k}, d = ${d} take ${expected} bytes, got ${bytes.length}`,
    )
  }
  const count = k * d
  const out = new Float32Array(count)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (enc === 'float32') {
    if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(bytes)
    else for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true)
    return out
  }
  if (enc === 'float16') {
    for (let i = 0; i < count; i++) out[i] = float16BitsToFloat32(view.getUint16(i * 2, true))
    return out
  }
  const body = 8 * d
  for (let t = 0; t < d; t++) {
    const lo = view.getFloat32(t * 4, true)
    const scale = view.getFloat32((d + t) * 4, true)
    for (let j = 0; j < k; j++) out[j * d + t] = lo + bytes[body + j * d + t] * scale
  }
  return out
}

const scratch = new Float32Array(1)
const scratchBits = new Uint32Array(scratch.buffer)

/** The next float32 above a non-negative float32. */
function nextFloat32Up(x: number): number {
  scratch[0] = x
  scratchBits[0] += 1
  return scratch[0]
}
