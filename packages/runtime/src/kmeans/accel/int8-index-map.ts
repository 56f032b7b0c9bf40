/**
 * The int8 vectors of an `i8` HNSW index. usearch's own float → i8 cast scales each vector to unit
 * length first (it assumes a dot-product metric), so under L2 it would compare directions, not
 * distances: two centroids on one ray, or a HOG row and its double, become the same vector.
 * Codebook quantises instead with one affine map shared by the centroids and the queries:
 * q_t = round((x_t − offset_t) / scale), clamped to ±127. A per-dimension offset shifts every
 * vector alike and one scale shrinks every distance alike, so squared L2 distances keep their
 * order up to the rounding (≤ scale / 2 per coordinate). For uint8 data the scale is ≈ 1: the
 * bytes themselves, centred.
 */
export interface Int8Map {
  /** Subtracted from coordinate t before scaling: the midpoint of the centroids' range there. */
  readonly offset: Float32Array
  /** One step of the int8 grid in data units (the widest dimension's range ÷ 254). */
  readonly scale: number
}

/** The map of `k` centroids (k × d): each dimension's range centred on 0, the widest spanning ±127. */
export function int8MapOf(centroids: Float32Array, k: number, d: number): Int8Map {
  if (k === 0) return { offset: new Float32Array(d), scale: 1 }
  const low = new Float32Array(d).fill(Number.POSITIVE_INFINITY)
  const high = new Float32Array(d).fill(Number.NEGATIVE_INFINITY)
  for (let c = 0; c < k; c++)
    for (let t = 0; t < d; t++) {
      const v = centroids[c * d + t]!
      if (v < low[t]!) low[t] = v
      if (v > high[t]!) high[t] = v
    }
  const offset = new Float32Array(d)
  let widest = 0
  for (let t = 0; t < d; t++) {
    offset[t] = (low[t]! + high[t]!) / 2
    widest = Math.max(widest, high[t]! - low[t]!)
  }
  // All centroids equal in every dimension: any positive scale maps them to 0.
  return { offset, scale: widest > 0 ? widest / 254 : 1 }
}

/** Rows `from` … `to` of `rows` (n × d float32) under `map`, as int8 (a new array of (to − from) · d). */
export function quantiseRows(
  rows: Float32Array,
  d: number,
  map: Int8Map,
  from: number,
  to: number,
): Int8Array {
  const out = new Int8Array((to - from) * d)
  const inverse = 1 / map.scale
  for (let i = from, o = 0; i < to; i++)
    for (let t = 0; t < d; t++, o++) {
      const q = Math.round((rows[i * d + t]! - map.offset[t]!) * inverse)
      out[o] = Math.min(127, Math.max(-127, q))
    }
  return out
}
