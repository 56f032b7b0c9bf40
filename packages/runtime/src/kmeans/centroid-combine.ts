import { clusterSumsCombiner } from '../collectives/regroup/cluster-sums-combiner.ts'
import type { Combiner } from '../collectives/regroup/combiner.ts'
import type { Partials } from '../collectives/regroup/partials.ts'
import { type CentroidEncoding, decodeCentroids, encodeCentroids } from './encoding/centroid-encoding.ts'

/** What the combine stage gathers at the root: the reduced cluster sums, or centroid blocks as the papers' reducers sent them. */
export const combineKinds = ['partials', 'centroids'] as const
export type CombineKind = (typeof combineKinds)[number]

const HEADER = 8

/**
 * The combine stage's combiner when a run asks for `--combine centroids` (the Twister papers'
 * reducers send their block of updated centroids, as bytes, to the driver: 512 MB for 10⁶ × 512
 * where the cluster sums would be 4 GB). A reducer's block travels as its counts (float64, so
 * empty clusters stay empty at the root) and its centroids sum ÷ count in the run's centroid
 * encoding (uint8: per-dimension minimum and scale over the block). The root decodes each block
 * back into sums = centroid × count, so its update computes the decoded centroids: lossy exactly
 * as the encoding is (uint8: half a step of the block's range per dimension), and nothing else
 * at the root changes. Only the combine uses it; shuffle and reduce keep the exact sums.
 */
export function centroidBlockCombiner(d: number, encoding: CentroidEncoding): Combiner<Partials> {
  const sums = clusterSumsCombiner(d)
  return {
    ...sums,
    name: `centroid-blocks-${encoding}`,
    elementwiseSum: undefined,
    encode(p, from, to) {
      const m = to - from
      const centroids = new Float32Array(m * d)
      let filler = -1
      for (let j = 0; j < m; j++) if (p.counts[from + j]! > 0 && filler < 0) filler = j
      for (let j = 0; j < m; j++) {
        const count = p.counts[from + j]!
        // An empty cluster's row is never read at the root (its count is 0); it repeats a
        // non-empty one so that it does not widen the uint8 range.
        const src = count > 0 ? j : filler
        if (src < 0) continue
        const n = p.counts[from + src]!
        for (let t = 0; t < d; t++) centroids[j * d + t] = p.sums[(from + src) * d + t]! / n
      }
      const body = encodeCentroids(centroids, m, d, encoding)
      const bytes = new Uint8Array(HEADER + 8 * m + body.length)
      const view = new DataView(bytes.buffer)
      view.setUint32(0, from, true)
      view.setUint32(4, to, true)
      for (let j = 0; j < m; j++) view.setFloat64(HEADER + 8 * j, p.counts[from + j]!, true)
      bytes.set(body, HEADER + 8 * m)
      return { bytes, sparse: false }
    },
    combineBlock(into, block) {
      const view = new DataView(block.buffer, block.byteOffset, block.byteLength)
      const from = view.getUint32(0, true)
      const m = view.getUint32(4, true) - from
      const centroids = decodeCentroids(block.subarray(HEADER + 8 * m), m, d, encoding)
      for (let j = 0; j < m; j++) {
        const count = view.getFloat64(HEADER + 8 * j, true)
        if (count === 0) continue
        into.counts[from + j] += count
        for (let t = 0; t < d; t++) into.sums[(from + j) * d + t] += centroids[j * d + t]! * count
      }
    },
  }
}
