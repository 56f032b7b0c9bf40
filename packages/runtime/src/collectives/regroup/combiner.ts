/**
 * The key/value combiner of the regroup and reduce stages (Twister's combiner interface, the
 * paper's Table 7): a partial `P` holds one value per key over keys [0, keys), the keys are split
 * into one contiguous block per reducer, and ⊕ combines two partials key by key.
 *
 * Order: every aggregation mode combines operands in group order (member 0's map tasks first, in
 * task order, then member 1's, …), so a non-commutative ⊕ (string concatenation, matrix
 * products) gives the left-to-right fold. A commutative ⊕ (`commutative: true`) lets a mode
 * combine in whatever order is cheapest, e.g. a node's own tasks first.
 */
export interface Combiner<P> {
  /** For error messages and tests (`cluster-sums`, …). */
  readonly name: string
  /** Whether a ⊕ b = b ⊕ a for every a, b. When false, the modes keep group order (see above). */
  readonly commutative: boolean
  /** The identity over keys [0, keys): zero ⊕ x = x ⊕ zero = x. */
  zero(keys: number): P
  /** a ⊕ b on every key, written into `a` (the operand holding the lower ranks). */
  combine(a: P, b: P): void
  /** The bytes of keys [from, to) of `p` (any layout `combineBlock` reads back). */
  encode(p: P, from: number, to: number): EncodedBlock
  /**
   * Decodes a block made by {@link encode} and combines it into `into` on the block's keys:
   * `into ⊕ block` when the block holds the higher ranks (`blockSide` `'right'`), `block ⊕ into`
   * when it holds the lower ones (`'left'`); other keys stay as they were. Decoding and combining
   * are one step because a decoded block is never needed on its own: the cluster sums add
   * straight from the wire, sparse or dense, without materialising the block.
   */
  combineBlock(into: P, block: Uint8Array, blockSide: 'left' | 'right'): void
  /**
   * Optional: ⊕ is element-wise addition of one float64 vector (`pack`) — then `allreduce` runs
   * the dense ring all-reduce of that vector, the bandwidth-optimal fixed-size path, instead of
   * a reduce-scatter by key block through the codec followed by an all-gather.
   */
  readonly elementwiseSum?: {
    /** The vector of `p` (a fresh array: the all-reduce sums into it). */
    pack(p: P): Float64Array
    /** The partial whose vector is `v` (may view `v`). */
    unpack(v: Float64Array, keys: number): P
  }
}

/** An encoded block, and whether the combiner chose a sparse form (counted in reports). */
export interface EncodedBlock {
  bytes: Uint8Array
  sparse: boolean
  /** Bytes a narrower value encoding saved against the combiner's plain one (K-means: int32 vs float64). */
  savedBytes?: number
}
