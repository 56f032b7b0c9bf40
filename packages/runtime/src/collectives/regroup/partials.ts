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
/** Largest magnitude an int32 value carries exactly. */
const INT32_MAX = 2 ** 31 - 1

/** Bytes of one value on the wire: float64, or int32 when every value of the block is an integer. */
function valueBytes(int: boolean): number {
  return int ? 4 : 8
}

/** A view of `length` values at byte `offset`: int32 or float64. */
function values(
  int: boolean,
  buffer: ArrayBufferLike,
  offset: number,
  length: number,
): Int32Array | Float64Array {
  return int ? new Int32Array(buffer, offset, length) : new Float64Array(buffer, offset, length)
}

/** Encoded size of a dense block of `kb` keys of width d (float64 values, or int32 with `int`). */
export function denseBytes(kb: number, d: number, int = false): number {
  return HEADER_BYTES + kb * valueBytes(int) * (d + 1)
}

/** Encoded size of a sparse block of `t` touched keys of width d (u32 ids padded to 8 bytes). */
export function sparseBytes(t: number, d: number, int = false): number {
  return HEADER_BYTES + Math.ceil((t * 4) / 8) * 8 + t * valueBytes(int) * (d + 1)
}

/** How keys [from, to) of `p` are encoded: touched keys, and whether all their values are int32-exact. */
function survey(p: Partials, from: number, to: number): { touched: number; int: boolean } {
  let touched = 0
  let int = true
  const d = p.d
  for (let i = from; i < to; i++) {
    const c = p.counts[i]!
    if (c > 0) touched++
    if (!int) continue
    if (!Number.isInteger(c) || c > INT32_MAX) int = false
    for (let t = i * d, end = t + d; int && t < end; t++) {
      const v = p.sums[t]!
      // Integer data (uint8 HOG widened to float32) sums to integers: exact in float64 and in int32.
      if (!Number.isInteger(v) || v > INT32_MAX || v < -INT32_MAX) int = false
    }
  }
  return { touched, int }
}

/** Encoded size of keys [from, to) of `p`: the smaller of sparse and dense. */
export function encodedBytes(p: Partials, from: number, to: number): number {
  const { touched, int } = survey(p, from, to)
  return Math.min(sparseBytes(touched, p.d, int), denseBytes(to - from, p.d, int))
}

/**
 * Encodes keys [from, to) of `p`: sparse (only keys with count > 0: ids, counts, sums) when that
 * is smaller than dense (all counts, all sums), else dense. Values are float64, or int32 when
 * every count and sum of the block is an integer within ±(2³¹ − 1) — exact, so the result is
 * bitwise the float64 path's (integer data such as uint8 HOG halves the regroup bytes).
 * Layout (little-endian, 8-aligned): `u32 kind | u32 from | u32 keys | u32 0 | [u32 ids, padded
 * to 8] | counts | sums`, kind = DENSE or SPARSE, plus INT32 when the values are int32.
 * `savedBytes` is what the int32 form saved against float64.
 */
export function encodeBlock(p: Partials, from: number, to: number): EncodedBlock {
  const d = p.d
  const { touched, int } = survey(p, from, to)
  const kb = to - from
  const sparse = sparseBytes(touched, d, int) < denseBytes(kb, d, int)
  const size = sparse ? sparseBytes(touched, d, int) : denseBytes(kb, d, int)
  const bytes = new Uint8Array(size)
  const head = new Uint32Array(bytes.buffer, 0, 4)
  head[0] = (sparse ? SPARSE : DENSE) | (int ? INT32 : 0)
  head[1] = from
  head[2] = sparse ? touched : kb
  const at = HEADER_BYTES
  const width = valueBytes(int)
  if (sparse) {
    const pad = Math.ceil((touched * 4) / 8) * 8
    const ids = new Uint32Array(bytes.buffer, at, touched)
    const counts = values(int, bytes.buffer, at + pad, touched)
    const sums = values(int, bytes.buffer, at + pad + touched * width, touched * d)
    let j = 0
    for (let i = from; i < to; i++) {
      if (!(p.counts[i]! > 0)) continue
      ids[j] = i
      counts[j] = p.counts[i]!
      sums.set(p.sums.subarray(i * d, (i + 1) * d), j * d)
      j++
    }
  } else {
    values(int, bytes.buffer, at, kb).set(p.counts.subarray(from, to))
    values(int, bytes.buffer, at + kb * width, kb * d).set(p.sums.subarray(from * d, to * d))
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
  const int = (head[0]! & INT32) !== 0
  const width = valueBytes(int)
  const at = b.byteOffset + HEADER_BYTES
  if ((head[0]! & SPARSE) !== 0) {
    const pad = Math.ceil((keys * 4) / 8) * 8
    const ids = new Uint32Array(b.buffer, at, keys)
    const counts = values(int, b.buffer, at + pad, keys)
    const sums = values(int, b.buffer, at + pad + keys * width, keys * d)
    for (let j = 0; j < keys; j++) {
      const i = ids[j]!
      dst.counts[i] += counts[j]!
      const o = i * d
      const s = j * d
      for (let t = 0; t < d; t++) dst.sums[o + t] += sums[s + t]!
    }
  } else {
    const from = head[1]!
    const counts = values(int, b.buffer, at, keys)
    const sums = values(int, b.buffer, at + keys * width, keys * d)
    for (let j = 0; j < keys; j++) dst.counts[from + j] += counts[j]!
    const o = from * d
    for (let t = 0; t < keys * d; t++) dst.sums[o + t] += sums[t]!
  }
}
