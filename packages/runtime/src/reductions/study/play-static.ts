import type { ReductionPlan } from '../plans.ts'
import type { ReductionCosts } from './costs.ts'
import type { ReductionPlayer } from './player.ts'

/**
 * Plays a static plan (Binomial-stat, Fibonacci-stat) in the paper's model: a process receives
 * one message at a time, in the plan's order (the order that keeps a non-commutative ⊕ in rank
 * order), and may receive the next message while it computes ⊕ with the previous one; its ⊕
 * run one after another, each after its message has arrived; it sends once, when its last ⊕ is
 * done. A child's send starts when both the child is done and the parent has finished its
 * previous receive. Children have higher ranks than parents, so one sweep from the last rank
 * down computes every finish time: no event queue.
 */
export class StaticPlayer implements ReductionPlayer {
  readonly n: number
  readonly merges: Int32Array
  private readonly childStart: Int32Array
  private readonly children: Int32Array
  private readonly done: Float64Array

  constructor(plan: ReductionPlan) {
    const n = plan.n
    this.n = n
    this.merges = new Int32Array(2 * (n - 1))
    this.childStart = new Int32Array(n + 1)
    this.children = new Int32Array(Math.max(0, n - 1))
    let next = 0
    for (let rank = 0; rank < n; rank++) {
      this.childStart[rank] = next
      for (const child of plan.ranks[rank]!.receiveFrom) this.children[next++] = child
    }
    this.childStart[n] = next
    this.done = new Float64Array(n)
  }

  play(costs: ReductionCosts): number {
    const { n, childStart, children, done, merges } = this
    let logged = 0
    for (let rank = n - 1; rank >= 0; rank--) {
      let receiveFree = 0
      let computeFree = 0
      for (let k = childStart[rank]!; k < childStart[rank + 1]!; k++) {
        const child = children[k]!
        const arrival = Math.max(done[child]!, receiveFree) + costs.communication(child, rank)
        receiveFree = arrival
        computeFree = Math.max(arrival, computeFree) + costs.computation(rank)
        merges[logged++] = rank
        merges[logged++] = child
      }
      done[rank] = computeFree
    }
    return done[0]!
  }
}
