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

/** Encoded size of a dense block of `kb` keys of width d. */
export function denseBytes(kb: number, d: number): number {
  return HEADER_BYTES + kb * 8 * (d + 1)
}

/** Encoded size of a sparse block of `t` touched keys of width d (u32 ids padded to 8 bytes). */
export function sparseBytes(t: number, d: number): number {
  return HEADER_BYTES + Math.ceil((t * 4) / 8) * 8 + t * 8 * (d + 1)
}

/** Encoded size of keys [from, to) of `p`: the smaller of sparse and dense. */
export function encodedBytes(p: Partials, from: number, to: number): number {
  let touched = 0
  for (let i = from; i < to; i++) if (p.counts[i]! > 0) touched++
  return Math.min(sparseBytes(touched, p.d), denseBytes(to - from, p.d))
}

/**
 * Encodes keys [from, to) of `p`: sparse (only keys with count > 0: ids, counts, sums) when that
 * is smaller than dense (all counts, all sums), else dense. Layout (little-endian, 8-aligned):
 * `u32 kind | u32 from | u32 keys | u32 0 | [u32 ids, padded to 8] | f64 counts | f64 sums`.
 */
export function encodeBlock(p: Partials, from: number, to: number): EncodedBlock {
  const d = p.d
  let touched = 0
  for (let i = from; i < to; i++) if (p.counts[i]! > 0) touched++
  const kb = to - from
  const sparse = sparseBytes(touched, d) < denseBytes(kb, d)
  const bytes = new Uint8Array(sparse ? sparseBytes(touched, d) : denseBytes(kb, d))
  const head = new Uint32Array(bytes.buffer, 0, 4)
  head[0] = sparse ? SPARSE : DENSE
  head[1] = from
  head[2] = sparse ? touched : kb
  const at = HEADER_BYTES
  if (sparse) {
    const pad = Math.ceil((touched * 4) / 8) * 8
    const ids = new Uint32Array(bytes.buffer, at, touched)
    const counts = new Float64Array(bytes.buffer, at + pad, touched)
    const sums = new Float64Array(bytes.buffer, at + pad + touched * 8, touched * d)
    let j = 0
    for (let i = from; i < to; i++) {
      if (!(p.counts[i]! > 0)) continue
      ids[j] = i
      counts[j] = p.counts[i]!
      sums.set(p.sums.subarray(i * d, (i + 1) * d), j * d)
      j++
    }
  } else {
    new Float64Array(bytes.buffer, at, kb).set(p.counts.subarray(from, to))
    new Float64Array(bytes.buffer, at + kb * 8, kb * d).set(p.sums.subarray(from * d, to * d))
  }
  return { bytes, sparse }
}

/** Adds an encoded block into `dst` (⊕). */
export function mergeBlock(dst: Partials, bytes: Uint8Array): void {
  const d = dst.d
  // Received messages start 8-aligned; copy only if a caller hands an unaligned view.
  const b = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes)
  const head = new Uint32Array(b.buffer, b.byteOffset, 4)
  const keys = head[2]!
  const at = b.byteOffset + HEADER_BYTES
  if (head[0] === SPARSE) {
    const pad = Math.ceil((keys * 4) / 8) * 8
    const ids = new Uint32Array(b.buffer, at, keys)
    const counts = new Float64Array(b.buffer, at + pad, keys)
    const sums = new Float64Array(b.buffer, at + pad + keys * 8, keys * d)
    for (let j = 0; j < keys; j++) {
      const i = ids[j]!
      dst.counts[i] += counts[j]!
      const o = i * d
      const s = j * d
      for (let t = 0; t < d; t++) dst.sums[o + t] += sums[s + t]!
    }
  } else {
    const from = head[1]!
    const counts = new Float64Array(b.buffer, at, keys)
    const sums = new Float64Array(b.buffer, at + keys * 8, keys * d)
    for (let j = 0; j < keys; j++) dst.counts[from + j] += counts[j]!
    const o = from * d
    for (let t = 0; t < keys * d; t++) dst.sums[o + t] += sums[t]!
  }
}
