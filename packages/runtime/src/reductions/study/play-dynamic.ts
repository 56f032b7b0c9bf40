import type { ReductionCosts } from './costs.ts'
import { EventHeap } from './event-heap.ts'
import type { ReductionPlayer } from './player.ts'

/**
 * Tree-dyn: a process that is ready (holds a partial result, no ⊕ pending) pairs with the one
 * process waiting, if any: it sends its partial result to the waiting process, which receives,
 * computes ⊕ and is ready again; else it waits (one waiting slot). At time 0 every process is
 * ready, in rank order: 1 sends to 0, 3 to 2, … Only for a commutative ⊕: partners are
 * whoever is ready, so intervals of ranks interleave.
 */
export class TreeDynPlayer implements ReductionPlayer {
  readonly merges: Int32Array
  private readonly heap: EventHeap

  constructor(readonly n: number) {
    this.merges = new Int32Array(2 * (n - 1))
    this.heap = new EventHeap(n)
  }

  play(costs: ReductionCosts): number {
    const { n, heap, merges } = this
    heap.clear()
    for (let rank = 0; rank < n; rank++) heap.push(0, rank)
    let values = n
    let waiting = -1
    let logged = 0
    for (;;) {
      const time = heap.peekTime()
      const ready = heap.pop()
      if (values === 1) return time
      if (waiting < 0) {
        waiting = ready
        continue
      }
      const receiver = waiting
      waiting = -1
      values--
      merges[logged++] = receiver
      merges[logged++] = ready
      heap.push(time + costs.communication(ready, receiver) + costs.computation(receiver), receiver)
    }
  }
}

/**
 * Non-Commut-Tree-dyn: each process holds the partial result of an interval of ranks; a ready
 * process pairs only with a waiting process holding an adjacent interval (the one that has
 * waited longer if both neighbours wait, the left one on a tie) and sends to it, so every ⊕
 * joins two adjacent intervals and a non-commutative ⊕ comes out in rank order. Any number of
 * processes may wait.
 */
export class NonCommutTreeDynPlayer implements ReductionPlayer {
  readonly merges: Int32Array
  private readonly heap: EventHeap
  private readonly first: Int32Array
  private readonly end: Int32Array
  /** holderStarting[r]: the process whose interval starts at rank r (valid at interval starts). */
  private readonly holderStarting: Int32Array
  /** holderEnding[r]: the process whose interval ends just before rank r (valid at interval ends). */
  private readonly holderEnding: Int32Array
  /** When a process began waiting; NaN while it is busy. */
  private readonly waitingSince: Float64Array

  constructor(readonly n: number) {
    this.merges = new Int32Array(2 * (n - 1))
    this.heap = new EventHeap(n)
    this.first = new Int32Array(n)
    this.end = new Int32Array(n)
    this.holderStarting = new Int32Array(n + 1)
    this.holderEnding = new Int32Array(n + 1)
    this.waitingSince = new Float64Array(n)
  }

  play(costs: ReductionCosts): number {
    const { n, heap, merges, first, end, holderStarting, holderEnding, waitingSince } = this
    heap.clear()
    for (let rank = 0; rank < n; rank++) {
      first[rank] = rank
      end[rank] = rank + 1
      holderStarting[rank] = rank
      holderEnding[rank + 1] = rank
      waitingSince[rank] = Number.NaN
      heap.push(0, rank)
    }
    let values = n
    let logged = 0
    for (;;) {
      const time = heap.peekTime()
      const ready = heap.pop()
      if (values === 1) return time
      const left = first[ready]! > 0 ? holderEnding[first[ready]!]! : -1
      const right = end[ready]! < n ? holderStarting[end[ready]!]! : -1
      const leftWaits = left >= 0 && !Number.isNaN(waitingSince[left]!)
      const rightWaits = right >= 0 && !Number.isNaN(waitingSince[right]!)
      if (!leftWaits && !rightWaits) {
        waitingSince[ready] = time
        continue
      }
      const toLeft = leftWaits && (!rightWaits || waitingSince[left]! <= waitingSince[right]!)
      const receiver = toLeft ? left : right
      waitingSince[receiver] = Number.NaN
      if (toLeft) {
        end[receiver] = end[ready]!
        holderEnding[end[ready]!] = receiver
      } else {
        first[receiver] = first[ready]!
        holderStarting[first[ready]!] = receiver
      }
      values--
      merges[logged++] = receiver
      merges[logged++] = ready
      heap.push(time + costs.communication(ready, receiver) + costs.computation(receiver), receiver)
    }
  }
}
