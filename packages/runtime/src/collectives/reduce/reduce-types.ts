import type { Combiner } from '../regroup/combiner.ts'

/** What one member brings to a reduction: its value (combined into in place) over `keys` keys. */
export interface ReduceInput<P> {
  combiner: Combiner<P>
  value: P
  keys: number
}

/**
 * Delays a benchmark injects (`codebook bench reduction`), absent in production: awaited after
 * the value from group member `from` arrived and before it is combined, standing for that
 * transfer's and that ⊕'s costs. Paid by the receiver, so transfers to one member queue as in
 * the paper's model (one receive at a time; a transfer starts once both ends are free).
 */
export interface ReduceHooks {
  beforeCombine?(from: number): Promise<void>
}

/** A member's outcome of the tree: the reduced value at the member holding it, else null. */
export interface MemberReduction<P> {
  value: P | null
  /** The member holding the reduced value: known there and at the root, else null. */
  holder: number | null
  /** Values this member encoded and sent, by the form the combiner chose. */
  messages: { sparse: number; dense: number }
}
