import { createHash } from 'node:crypto'
import { createRng } from '../random/rng.ts'

/** Deterministic pseudo-random bytes: the payload collective tests and benchmarks send. */
export function patternBytes(n: number, seed: number): Uint8Array {
  const rng = createRng(seed)
  const out = new Uint8Array(n)
  const words = Math.floor(n / 4)
  const view = new Uint32Array(out.buffer, 0, words)
  for (let i = 0; i < words; i++) view[i] = rng.int(4294967296)
  for (let i = words * 4; i < n; i++) out[i] = rng.int(256)
  return out
}

/**
 * Deterministic integer-valued float64s in [−1000, 1000]: sums of them are exact in float64 in
 * any order, so an all-reduce result can be compared bit for bit with an independent sum.
 */
export function patternFloat64(n: number, seed: number): Float64Array {
  const rng = createRng(seed)
  const out = new Float64Array(n)
  for (let i = 0; i < n; i++) out[i] = rng.int(2001) - 1000
  return out
}

/** SHA-256 hex of some byte arrays, concatenated. */
export function sha256(...parts: Uint8Array[]): string {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return h.digest('hex')
}
