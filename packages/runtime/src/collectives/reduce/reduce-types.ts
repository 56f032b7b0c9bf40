import type { Combiner } from '../regroup/combiner.ts'

/** What one member brings to a reduction: its value (combined into in place) over `keys` keys. */
export interface ReduceInput<P> {
  combiner: Combiner<P>
  value: P
  keys: number
}

/**
 * Delays a benchmark injects (`codebook bench reduction`): awaited before each ⊕ at this member
 * and before it sends its value to group member `to`. Absent in production.
 */
export interface ReduceHooks {
  beforeCombine?(): Promise<void>
  beforeSend?(to: number): Promise<void>
}

/** A member's outcome of the tree: the reduced value at the member holding it, else null. */
export interface MemberReduction<P> {
  value: P | null
  /** The member holding the reduced value: known there and at the root, else null. */
  holder: number | null
  /** Values this member encoded and sent, by the form the combiner chose. */
  messages: { sparse: number; dense: number }
}
