/**
 * Who-pairs-with-whom of the dynamic reductions (Benoit, Canon, Marchal, "Non-Clairvoyant
 * Reduction Algorithms for Heterogeneous Platforms"), as pure logic: the coordinator feeds it
 * "member m is ready" events and it answers with the transfers to start. No data, no timing.
 *
 * In both, the member that becomes ready sends its value to the ready one it pairs with (that one
 * has been idle, so it can receive at once); the receiver combines and becomes ready again.
 */
export interface Pairing {
  /** Member `m` holds a value and is idle: a transfer to start, or null if `m` waits. */
  ready(m: number): Transfer | null
}

/** `sender` sends its value to `receiver`, which combines it on `side` of its own. */
export interface Transfer {
  sender: number
  receiver: number
  /** `'right'` when the sender's value covers higher ranks than the receiver's (see `Combiner.combineBlock`). */
  side: 'left' | 'right'
}

/**
 * Tree-dyn: one waiting slot. A ready member pairs with the one waiting, else waits. For a
 * commutative ⊕ only: the pairs ignore rank order.
 */
export function treeDynPairing(): Pairing {
  let waiting: number | null = null
  return {
    ready(m) {
      if (waiting === null) {
        waiting = m
        return null
      }
      const receiver = waiting
      waiting = null
      return { sender: m, receiver, side: 'right' }
    },
  }
}

/**
 * Non-Commut-Tree-dyn: every member holds an interval of ranks (initially its own); a ready
 * member pairs only with a ready member holding the interval next to its own, so every ⊕ joins
 * adjacent intervals and the result is the left-to-right fold in rank order. With both
 * neighbours ready it takes the one that has waited longer (Tree-dyn's first-come order).
 */
export function nonCommutTreeDynPairing(n: number): Pairing {
  // Interval of each owner, and the owner of the interval starting / ending at a rank.
  const lo = Array.from({ length: n }, (_, i) => i)
  const hi = Array.from({ length: n }, (_, i) => i)
  const ownerOfStart = Array.from({ length: n }, (_, i) => i)
  const ownerOfEnd = Array.from({ length: n }, (_, i) => i)
  // When each owner became ready (a counter), or null while it is busy.
  const readySince: (number | null)[] = new Array(n).fill(null)
  let clock = 0
  return {
    ready(m) {
      const left = lo[m]! > 0 ? ownerOfEnd[lo[m]! - 1]! : null
      const right = hi[m]! < n - 1 ? ownerOfStart[hi[m]! + 1]! : null
      const waitingSince = (o: number | null) => (o === null ? null : readySince[o]!)
      const l = waitingSince(left)
      const r = waitingSince(right)
      if (l === null && r === null) {
        readySince[m] = clock++
        return null
      }
      const receiver = (r === null || (l !== null && l < r) ? left : right)!
      readySince[receiver] = null
      // The receiver now owns the union; the sender is done.
      const from = Math.min(lo[m]!, lo[receiver]!)
      const to = Math.max(hi[m]!, hi[receiver]!)
      lo[receiver] = from
      hi[receiver] = to
      ownerOfStart[from] = receiver
      ownerOfEnd[to] = receiver
      return { sender: m, receiver, side: lo[m]! > from ? 'right' : 'left' }
    },
  }
}
