import type { Combiner } from './combiner.ts'
import {
  addPartials,
  createPartials,
  encodeBlock,
  mergeBlock,
  type Partials,
  type PartialsEncoding,
} from './partials.ts'

/**
 * K-means's combiner: per centroid, the sum of its points (d float64) and their count; ⊕ adds.
 * Commutative (float64 addition is, bit for bit), so the modes may combine in any order; the
 * codec is the sparse/dense block of `partials.ts`, and `elementwiseSum` lets `allreduce` run
 * the dense ring all-reduce of [sums, counts] (always float64: it does not go through the codec).
 * `encoding` `float32` lets the codec round non-integer sums to float32 (lossy, bounded).
 */
export function clusterSumsCombiner(d: number, encoding: PartialsEncoding = 'exact'): Combiner<Partials> {
  return {
    name: 'cluster-sums',
    commutative: true,
    zero: (keys) => createPartials(keys, d),
    combine: addPartials,
    encode: (p, from, to) => encodeBlock(p, from, to, encoding),
    combineBlock: (into, block) => mergeBlock(into, block),
    elementwiseSum: {
      // Counts ride in the same vector as the sums, so one all-reduce carries the whole value.
      pack(p) {
        const flat = new Float64Array(p.k * d + p.k)
        flat.set(p.sums, 0)
        flat.set(p.counts, p.k * d)
        return flat
      },
      unpack: (v, keys) => ({ k: keys, d, sums: v.subarray(0, keys * d), counts: v.subarray(keys * d) }),
    },
  }
}
