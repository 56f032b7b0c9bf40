/** Whether event (t1, r1) comes before (t2, r2): earlier time, then lower rank. */
function earlier(t1: number, r1: number, t2: number, r2: number): boolean {
  return t1 < t2 || (t1 === t2 && r1 < r2)
}

/**
 * A binary min-heap of (time, rank) events over typed arrays, for at most `capacity` events at
 * once. Ties in time pop the lower rank first, so a play is deterministic. Reused across runs
 * (`clear`): no allocation per event.
 */
export class EventHeap {
  private readonly times: Float64Array
  private readonly ranks: Int32Array
  private size = 0

  constructor(capacity: number) {
    this.times = new Float64Array(capacity)
    this.ranks = new Int32Array(capacity)
  }

  get length(): number {
    return this.size
  }

  clear(): void {
    this.size = 0
  }

  push(time: number, rank: number): void {
    const { times, ranks } = this
    let i = this.size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!earlier(time, rank, times[parent]!, ranks[parent]!)) break
      times[i] = times[parent]!
      ranks[i] = ranks[parent]!
      i = parent
    }
    times[i] = time
    ranks[i] = rank
  }

  /** The earliest event's time (valid while `length > 0`). */
  peekTime(): number {
    return this.times[0]!
  }

  /** Removes the earliest event and returns its rank (valid while `length > 0`). */
  pop(): number {
    const { times, ranks } = this
    const top = ranks[0]!
    const last = --this.size
    const time = times[last]!
    const rank = ranks[last]!
    let i = 0
    for (;;) {
      let child = 2 * i + 1
      if (child >= last) break
      if (child + 1 < last && earlier(times[child + 1]!, ranks[child + 1]!, times[child]!, ranks[child]!))
        child++
      if (!earlier(times[child]!, ranks[child]!, time, rank)) break
      times[i] = times[child]!
      ranks[i] = ranks[child]!
      i = child
    }
    times[i] = time
    ranks[i] = rank
    return top
  }
}
