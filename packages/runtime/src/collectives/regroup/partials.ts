import { runPartials } from '@codebook/shared'
import type { EncodedBlock } from './combiner.ts'

/**
 * Key-value partial results of a map task or node: key = centroid id, value = (sum vector,
 * count). Held dense in memory (k × d sums, k counts, float64 so long sums stay exact well past
 * float32 resolution); encoded for the wire sparse or dense, whichever is smaller.
 */
export interface Partials {
  k: number
  d: number
  /** k × d row-major sums. */
  sums: Float64Array
  /** Per-centroid counts (float64 so the whole value is one element type). */
  counts: Float64Array
}

/** Zeroed partials for k centroids of width d. */
export function createPartials(k: number, d: number): Partials {
  return { k, d, sums: new Float64Array(k * d), counts: new Float64Array(k) }
}

/** Adds every key of `src` into `dst` (the combiner ⊕: associative and commutative). */
export function addPartials(dst: Partials, src: Partials): void {
  const { sums, counts } = dst
  for (let i = 0; i < src.counts.length; i++) counts[i] += src.counts[i]!
  for (let i = 0; i < src.sums.length; i++) sums[i] += src.sums[i]!
}

const HEADER_BYTES = 16
const DENSE = 0
const SPARSE = 1
/** Flag bit of the kind word: counts and sums travel as int32 (every value an integer in range). */
const INT32 = 2
/** Flag bit of the kind word: counts and sums travel as float32 (lossy; `float32` partials only). */
const FLOAT32 = 4
/** Largest magnitude an int32 value carries exactly. */
const INT32_MAX = 2 ** 31 - 1
/** Largest count float32 carries exactly (every integer up to 2²⁴ is a float32). */
const FLOAT32_EXACT_COUNT = 2 ** 24
/** Largest finite float32. */
const FLOAT32_MAX = 3.4028234663852886e38

/**
 * How a block's values travel: `exact` (int32 when every value is an integer in range, else
 * float64) or `float32` (int32 when exact, else float32 sums with exact counts, else float64).
 * The float32 error bound is in `docs/runtime.md`, "Float32 partial sums".
 */
export type PartialsEncoding = (typeof runPartials)[number]
/** Every partials encoding, for flags and schemas. */
export const partialsEncodings: readonly PartialsEncoding[] = runPartials

/** The value type of one encoded block. */
export type ValueKind = 'int32' | 'float32' | 'float64'

/** Bytes of one value on the wire. */
function valueBytes(kind: ValueKind): number {
  return kind === 'float64' ? 8 : 4
}

/** A view of `length` values of `kind` at byte `offset`. */
function values(
  kind: ValueKind,
  buffer: ArrayBufferLike,
  offset: number,
  length: number,
): Int32Array | Float32Array | Float64Array {
  if (kind === 'int32') return new Int32Array(buffer, offset, length)
  return kind === 'float32'
    ? new Float32Array(buffer, offset, length)
    : new Float64Array(buffer, offset, length)
}

/** A bool is the old call form: true = int32. */
function kindOf(kind: ValueKind | boolean): ValueKind {
  return kind === true ? 'int32' : kind === false ? 'float64' : kind
}

/** Encoded size of a dense block of `kb` keys of width d (float64 values unless `kind` says otherwise; `true` = int32). */
export function denseBytes(kb: number, d: number, kind: ValueKind | boolean = 'float64'): number {
  return HEADER_BYTES + kb * valueBytes(kindOf(kind)) * (d + 1)
}

/** Encoded size of a sparse block of `t` touched keys of width d (u32 ids padded to 8 bytes). */
export function sparseBytes(t: number, d: number, kind: ValueKind | boolean = 'float64'): number {
  return HEADER_BYTES + Math.ceil((t * 4) / 8) * 8 + t * valueBytes(kindOf(kind)) * (d + 1)
}

/** How keys [from, to) of `p` are encoded: touched keys, and the narrowest value kind `encoding` allows. */
function survey(
  p: Partials,
  from: number,
  to: number,
  encoding: PartialsEncoding,
): { touched: number; kind: ValueKind } {
  let touched = 0
  let int = true
  // float32 needs exact counts (≤ 2²⁴) and finite float32 sums; only asked for in `float32` mode.
  let f32 = encoding === 'float32'
  const d = p.d
  for (let i = from; i < to; i++) {
    const c = p.counts[i]!
    if (c > 0) touched++
    if (!int && !f32) continue
    if (!Number.isInteger(c) || c > INT32_MAX) int = false
    if (c > FLOAT32_EXACT_COUNT) f32 = false
    for (let t = i * d, end = t + d; (int || f32) && t < end; t++) {
      const v = p.sums[t]!
      // Integer data (uint8 HOG widened to float32) sums to integers: exact in float64 and in int32.
      if (int && (!Number.isInteger(v) || v > INT32_MAX || v < -INT32_MAX)) int = false
      if (f32 && !(Math.abs(v) <= FLOAT32_MAX)) f32 = false
    }
  }
  return { touched, kind: int ? 'int32' : f32 ? 'float32' : 'float64' }
}

/** Encoded size of keys [from, to) of `p`: the smaller of sparse and dense. */
export function encodedBytes(
  p: Partials,
  from: number,
  to: number,
  encoding: PartialsEncoding = 'exact',
): number {
  const { touched, kind } = survey(p, from, to, encoding)
  return Math.min(sparseBytes(touched, p.d, kind), denseBytes(to - from, p.d, kind))
}

/**
 * Encodes keys [from, to) of `p`: sparse (only keys with count > 0: ids, counts, sums) when that
 * is smaller than dense (all counts, all sums), else dense. Values are int32 when every count
 * and sum of the block is an integer within ±(2³¹ − 1) — exact, so the result is bitwise the
 * float64 path's (integer data such as uint8 HOG halves the regroup bytes); else float32 when
 * `encoding` is `float32` (each sum rounded once, relative error ≤ 2⁻²⁴; counts ≤ 2²⁴ exact);
 * else float64. Layout (little-endian, 8-aligned): `u32 kind | u32 from | u32 keys | u32 0 |
 * [u32 ids, padded to 8] | counts | sums`, kind = DENSE or SPARSE, plus INT32 or FLOAT32.
 * `savedBytes` is what the narrower form saved against float64.
 */
export function encodeBlock(
  p: Partials,
  from: number,
  to: number,
  encoding: PartialsEncoding = 'exact',
): EncodedBlock {
  const d = p.d
  const { touched, kind } = survey(p, from, to, encoding)
  const kb = to - from
  const sparse = sparseBytes(touched, d, kind) < denseBytes(kb, d, kind)
  const size = sparse ? sparseBytes(touched, d, kind) : denseBytes(kb, d, kind)
  const bytes = new Uint8Array(size)
  const head = new Uint32Array(bytes.buffer, 0, 4)
  head[0] = (sparse ? SPARSE : DENSE) | (kind === 'int32' ? INT32 : kind === 'float32' ? FLOAT32 : 0)
  head[1] = from
  head[2] = sparse ? touched : kb
  const at = HEADER_BYTES
  const width = valueBytes(kind)
  if (sparse) {
    const pad = Math.ceil((touched * 4) / 8) * 8
    const ids = new Uint32Array(bytes.buffer, at, touched)
    const counts = values(kind, bytes.buffer, at + pad, touched)
    const sums = values(kind, bytes.buffer, at + pad + touched * width, touched * d)
    let j = 0
    for (let i = from; i < to; i++) {
      if (!(p.counts[i]! > 0)) continue
      ids[j] = i
      counts[j] = p.counts[i]!
      sums.set(p.sums.subarray(i * d, (i + 1) * d), j * d)
      j++
    }
  } else {
    values(kind, bytes.buffer, at, kb).set(p.counts.subarray(from, to))
    values(kind, bytes.buffer, at + kb * width, kb * d).set(p.sums.subarray(from * d, to * d))
  }
  const float64Size = Math.min(sparseBytes(touched, d), denseBytes(kb, d))
  return { bytes, sparse, savedBytes: float64Size - size }
}

/** Adds an encoded block into `dst` (⊕). */
export function mergeBlock(dst: Partials, bytes: Uint8Array): void {
  const d = dst.d
  // Received messages start 8-aligned; copy only if a caller hands an unaligned view.
  const b = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes)
  const head = new Uint32Array(b.buffer, b.byteOffset, 4)
  const keys = head[2]!
  const kind: ValueKind =
    (head[0]! & INT32) !== 0 ? 'int32' : (head[0]! & FLOAT32) !== 0 ? 'float32' : 'float64'
  const width = valueBytes(kind)
  const at = b.byteOffset + HEADER_BYTES
  if ((head[0]! & SPARSE) !== 0) {
    const pad = Math.ceil((keys * 4) / 8) * 8
    const ids = new Uint32Array(b.buffer, at, keys)
    const counts = values(kind, b.buffer, at + pad, keys)
    const sums = values(kind, b.buffer, at + pad + keys * width, keys * d)
    for (let j = 0; j < keys; j++) {
      const i = ids[j]!
      dst.counts[i] += counts[j]!
      const o = i * d
      const s = j * d
      for (let t = 0; t < d; t++) dst.sums[o + t] += sums[s + t]!
    }
  } else {
    const from = head[1]!
    const counts = values(kind, b.buffer, at, keys)
    const sums = values(kind, b.buffer, at + keys * width, keys * d)
    for (let j = 0; j < keys; j++) dst.counts[from + j] += counts[j]!
    const o = from * d
    for (let t = 0; t < keys * d; t++) dst.sums[o + t] += sums[t]!
  }
}
