import { CodebookError } from '../../errors.ts'

/** Largest finite IEEE half value. */
export const FLOAT16_MAX = 65504
/** Smallest positive normal half, 2⁻¹⁴. Below it halves are subnormal with a fixed step of 2⁻²⁴. */
export const FLOAT16_MIN_NORMAL = 2 ** -14
/** Relative error bound of round-to-nearest-even to half in the normal range: half an ulp, 2⁻¹¹. */
export const FLOAT16_MAX_RELATIVE_ERROR = 2 ** -11
/** Absolute error bound in the subnormal range: half the subnormal step, 2⁻²⁵. */
export const FLOAT16_MAX_SUBNORMAL_ERROR = 2 ** -25

const f32 = new Float32Array(1)
const u32 = new Uint32Array(f32.buffer)

function roundHalfEven(x: number): number {
  const r = Math.round(x)
  // Math.round sends .5 up; ties go to the even neighbour instead.
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r
}

/**
 * IEEE 754 half bits of a float32 value, rounded to nearest, ties to even (Node 20 has no
 * Math.f16round). The rounding is done in float64 arithmetic, where dividing by a power of two
 * and rounding to an integer are exact, rather than by bit twiddling of carries.
 * Throws `CENTROID_ENCODING_RANGE` for NaN, ±∞ and |v| ≥ 65520 (which would round to ∞).
 */
export function float32ToFloat16Bits(value: number): number {
  if (!Number.isFinite(value))
    throw new CodebookError('CENTROID_ENCODING_RANGE', `float16 encoding: ${value} is not finite`)
  f32[0] = value
  const bits = u32[0]
  const sign = (bits >>> 16) & 0x8000
  const a = Math.abs(f32[0])
  const biased = (bits >>> 23) & 0xff
  // float32 subnormals (< 2⁻¹²⁶) are far below half's smallest subnormal: they round to ±0.
  if (biased === 0) return sign
  const exponent = biased - 127
  const step = exponent < -14 ? 2 ** -24 : 2 ** (exponent - 10)
  const rounded = roundHalfEven(a / step) * step
  if (rounded >= 65520) {
    throw new CodebookError(
      'CENTROID_ENCODING_RANGE',
      `float16 encoding: |${value}| exceeds the half range (max ${FLOAT16_MAX}); use float32 or uint8`,
    )
  }
  if (rounded < FLOAT16_MIN_NORMAL) return sign | (rounded / 2 ** -24)
  // Rounding may have carried into the next binade (e.g. 2047.9 → 2048).
  const e = rounded >= 2 ** (exponent + 1) ? exponent + 1 : exponent
  return sign | ((e + 15) << 10) | (rounded / 2 ** (e - 10) - 1024)
}

/** The float value of IEEE half bits. */
export function float16BitsToFloat32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1
  const exponent = (h >>> 10) & 0x1f
  const mantissa = h & 0x3ff
  if (exponent === 0) return sign * mantissa * 2 ** -24
  if (exponent === 0x1f) return mantissa === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN
  return sign * (1024 + mantissa) * 2 ** (exponent - 25)
}
