import { CodebookError } from '../../../errors.ts'
import type { Rng } from '../../../random/rng.ts'
import { clusterSumsCombiner } from '../cluster-sums-combiner.ts'
import type { Combiner } from '../combiner.ts'
import type { Partials } from '../partials.ts'

/**
 * Combiners for the regroup tests: two non-commutative ones, whose result shows the order the
 * operands were combined in, and K-means's cluster sums with and without its dense all-reduce.
 */

function badBlock(name: string, why: string): CodebookError {
  return new CodebookError('COMBINER_BAD_BLOCK', `${name} block: ${why}`)
}

/** Keys [from, to) must lie inside a partial of `keys` keys. */
function checkRange(name: string, from: number, count: number, keys: number): void {
  if (from + count > keys) throw badBlock(name, `keys [${from}, ${from + count}) outside [0, ${keys})`)
}

/**
 * Per key a string; ⊕ concatenates. Codec: `u32 from | u32 count | u32 UTF-8 bytes per key | UTF-8`.
 */
export const concatCombiner: Combiner<string[]> = {
  name: 'concat',
  commutative: false,
  zero: (keys) => new Array<string>(keys).fill(''),
  combine(a, b) {
    for (let i = 0; i < a.length; i++) a[i] += b[i]!
  },
  encode(p, from, to) {
    const text = p.slice(from, to).map((s) => new TextEncoder().encode(s))
    const head = 8 + 4 * text.length
    const bytes = new Uint8Array(head + text.reduce((n, t) => n + t.length, 0))
    const view = new DataView(bytes.buffer)
    view.setUint32(0, from, true)
    view.setUint32(4, text.length, true)
    let at = head
    text.forEach((t, i) => {
      view.setUint32(8 + 4 * i, t.length, true)
      bytes.set(t, at)
      at += t.length
    })
    return { bytes, sparse: false }
  },
  combineBlock(into, block, blockSide) {
    const view = new DataView(block.buffer, block.byteOffset, block.byteLength)
    if (block.byteLength < 8) throw badBlock('concat', `${block.byteLength} bytes, no header`)
    const from = view.getUint32(0, true)
    const count = view.getUint32(4, true)
    checkRange('concat', from, count, into.length)
    let at = 8 + 4 * count
    const decoder = new TextDecoder('utf-8', { fatal: true })
    for (let i = 0; i < count; i++) {
      const n = view.getUint32(8 + 4 * i, true)
      if (at + n > block.byteLength) throw badBlock('concat', `key ${from + i} runs past the end`)
      const s = decoder.decode(block.subarray(at, at + n))
      at += n
      into[from + i] = blockSide === 'right' ? into[from + i] + s : s + into[from + i]
    }
  },
}

/** The prime modulus of {@link matrixProductCombiner}: products of entries < 2¹⁶ stay exact in float64. */
export const MATRIX_MODULUS = 65521

/** a · b of two row-major 2 × 2 matrices mod {@link MATRIX_MODULUS}, written at `out[o…o+3]`. */
function multiplyInto(
  out: Float64Array,
  o: number,
  a: ArrayLike<number>,
  ao: number,
  b: ArrayLike<number>,
  bo: number,
): void {
  const m = MATRIX_MODULUS
  const [a0, a1, a2, a3] = [a[ao]!, a[ao + 1]!, a[ao + 2]!, a[ao + 3]!]
  const [b0, b1, b2, b3] = [b[bo]!, b[bo + 1]!, b[bo + 2]!, b[bo + 3]!]
  out[o] = (a0 * b0 + a1 * b2) % m
  out[o + 1] = (a0 * b1 + a1 * b3) % m
  out[o + 2] = (a2 * b0 + a3 * b2) % m
  out[o + 3] = (a2 * b1 + a3 * b3) % m
}

/**
 * Per key a 2 × 2 matrix over the integers mod 65521 (4 float64, row-major); ⊕ multiplies.
 * Codec: `f64 from | f64 count | 4 f64 per key`.
 */
export const matrixProductCombiner: Combiner<Float64Array> = {
  name: 'matrix-product',
  commutative: false,
  zero(keys) {
    const p = new Float64Array(4 * keys)
    for (let i = 0; i < keys; i++) p.set([1, 0, 0, 1], 4 * i)
    return p
  },
  combine(a, b) {
    for (let o = 0; o < a.length; o += 4) multiplyInto(a, o, a, o, b, o)
  },
  encode(p, from, to) {
    const out = new Float64Array(2 + 4 * (to - from))
    out[0] = from
    out[1] = to - from
    out.set(p.subarray(4 * from, 4 * to), 2)
    return { bytes: new Uint8Array(out.buffer), sparse: false }
  },
  combineBlock(into, block, blockSide) {
    if (block.byteLength % 8 !== 0 || block.byteLength < 16)
      throw badBlock('matrix-product', `${block.byteLength} bytes is not a header and whole matrices`)
    const aligned = block.byteOffset % 8 === 0 ? block : new Uint8Array(block)
    const v = new Float64Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 8)
    const from = v[0]!
    const count = v[1]!
    if (v.length !== 2 + 4 * count)
      throw badBlock('matrix-product', `${count} keys in ${v.length - 2} values`)
    checkRange('matrix-product', from, count, into.length / 4)
    for (let i = 0; i < count; i++) {
      const o = 4 * (from + i)
      if (blockSide === 'right') multiplyInto(into, o, into, o, v, 2 + 4 * i)
      else multiplyInto(into, o, v, 2 + 4 * i, into, o)
    }
  },
}

/** Width of the cluster sums the tests use. */
export const TEST_SUM_WIDTH = 3

const clusterSums = clusterSumsCombiner(TEST_SUM_WIDTH)
/** K-means's combiner without its dense all-reduce: `allreduce` goes through the codec. */
const clusterSumsByBlock: Combiner<Partials> = { ...clusterSums, elementwiseSum: undefined }

/** The combiners the test application serves, by name. */
export const testCombiners = {
  concat: concatCombiner,
  'matrix-product': matrixProductCombiner,
  'cluster-sums': clusterSums,
  'cluster-sums-by-block': clusterSumsByBlock,
} as const
export type TestCombinerName = keyof typeof testCombiners
export const testCombinerNames = Object.keys(testCombiners) as TestCombinerName[]

/** The left-to-right fold zero ⊕ t₀ ⊕ t₁ ⊕ … of `tasks` (the order every mode must reproduce). */
export function foldInOrder<P>(combiner: Combiner<P>, keys: number, tasks: readonly P[]): P {
  const acc = combiner.zero(keys)
  for (const t of tasks) combiner.combine(acc, t)
  return acc
}

/** Random 2 × 2 matrices mod {@link MATRIX_MODULUS}, one per key. */
export function randomMatrices(rng: Rng, keys: number): Float64Array {
  return Float64Array.from({ length: 4 * keys }, () => rng.int(MATRIX_MODULUS))
}

function randomSums(rng: Rng, keys: number): Partials {
  const d = TEST_SUM_WIDTH
  const p = testCombiners['cluster-sums'].zero(keys)
  // Integer values add exactly in any order; untouched keys make sparse blocks worth sending.
  for (let k = 0; k < keys; k++) {
    if (rng.next() < 0.6) continue
    p.counts[k] = 1 + rng.int(9)
    for (let t = 0; t < d; t++) p.sums[k * d + t] = rng.int(2001) - 1000
  }
  return p
}

/** A random map-task partial of a test combiner (integer sums: exact in any order). */
export function randomTask(
  name: TestCombinerName,
  rng: Rng,
  keys: number,
  member: number,
  task: number,
): unknown {
  if (name === 'concat')
    return Array.from({ length: keys }, (_, k) =>
      rng.next() < 0.3 ? '' : `${member}.${task}.${k}${'é'.repeat(rng.int(3))}|`,
    )
  if (name === 'matrix-product') return randomMatrices(rng, keys)
  return randomSums(rng, keys)
}
