import { UsageError } from '../errors.ts'

/** The two static reduction trees of Benoit, Canon and Marchal's paper, by the CLI's names. */
export type StaticReductionAlgorithm = 'binomial' | 'fibonacci'

/** One rank's part in a static reduction tree. */
export interface RankPlan {
  rank: number
  /** Ranks this one receives partial results from, in the order it combines them. */
  receiveFrom: number[]
  /** The rank it sends its partial result to once every receive is combined; `null` at the root. */
  sendTo: number | null
  /** Its partial result covers the values of ranks `first` … `end − 1`, a contiguous interval. */
  first: number
  end: number
}

/**
 * A static reduction tree as data: who receives from whom (in order) and who sends to whom.
 * The root is rank 0. Both trees keep rank order: every child's interval is the one right after
 * its parent's accumulator at the time it is combined, so `acc = acc ⊕ received` (own value
 * first) folds a non-commutative ⊕ left to right, in rank order, when receives are combined in
 * `receiveFrom` order. A commutative ⊕ may combine them in arrival order instead.
 */
export interface ReductionPlan {
  algorithm: StaticReductionAlgorithm
  n: number
  ranks: RankPlan[]
}

function checkProcessCount(n: number): void {
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError('BAD_PROCESS_COUNT', `a reduction needs a whole number of processes ≥ 1, got ${n}`)
}

/** Fills `first`/`end` from the tree: a rank's interval runs from itself to its last child's end. */
function planFromReceives(algorithm: StaticReductionAlgorithm, receives: number[][]): ReductionPlan {
  const n = receives.length
  const ranks: RankPlan[] = receives.map((receiveFrom, rank) => ({
    rank,
    receiveFrom,
    sendTo: null,
    first: rank,
    end: rank + 1,
  }))
  for (const plan of ranks) for (const child of plan.receiveFrom) ranks[child]!.sendTo = plan.rank
  // Children have higher ranks than their parents: a right-to-left sweep sees each child's end first.
  for (let rank = n - 1; rank >= 0; rank--) {
    const plan = ranks[rank]!
    const last = plan.receiveFrom[plan.receiveFrom.length - 1]
    if (last !== undefined) plan.end = ranks[last]!.end
  }
  return { algorithm, n, ranks }
}

/**
 * Binomial-stat: in round r (r = 0, 1, …, ⌈log₂ n⌉ − 1) every rank i with i mod 2^(r+1) = 2^r
 * sends its partial result to rank i − 2^r. So rank i sends to i with its lowest set bit cleared
 * and receives from i + 1, i + 2, i + 4, … (those < n) while those are below its lowest set bit.
 */
export function binomialPlan(n: number): ReductionPlan {
  checkProcessCount(n)
  const receives: number[][] = Array.from({ length: n }, () => [])
  for (let step = 1; step < n; step *= 2)
    for (let rank = 0; rank + step < n; rank += 2 * step) receives[rank]!.push(rank + step)
  return planFromReceives('binomial', receives)
}

/** |FS_k| = F_(k+2) (F_1 = F_2 = 1): 1, 2, 3, 5, 8, … for k = 0, 1, 2, … */
export function fibonacciTreeSize(k: number): number {
  let [small, large] = [1, 1] // F_1, F_2
  for (let i = 0; i < k; i++) [small, large] = [large, small + large]
  return large
}

/** The smallest k with F_(k+2) ≥ n: the order of the Fibonacci tree Fibonacci-stat uses for n processes. */
export function fibonacciOrder(n: number): number {
  checkProcessCount(n)
  let k = 0
  while (fibonacciTreeSize(k) < n) k++
  return k
}

/**
 * Fibonacci-stat: FS_0 is one process; FS_1 is two (rank 1 sends to rank 0); FS_k is FS_(k−1)
 * on the lower ranks and FS_(k−2) on the next F_k ranks, whose root sends to FS_(k−1)'s root
 * after all of that root's own receives. With unit costs the smaller tree finishes one step
 * earlier, so its send overlaps the larger root's last computation and FS_k completes at
 * time k + 1 with F_(k+2) values. For n processes: FS_k with the smallest k such that
 * F_(k+2) ≥ n, keeping ranks 0 … n − 1 (a parent always has a lower rank than its child, so
 * the kept ranks still form one tree).
 */
export function fibonacciPlan(n: number): ReductionPlan {
  checkProcessCount(n)
  const receives: number[][] = Array.from({ length: n }, () => [])
  // Builds FS_k on ranks base … base + |FS_k| − 1; receives go in the order they are combined.
  const build = (k: number, base: number): void => {
    if (k <= 0 || base >= n) return
    const larger = k - 1
    const smallerBase = base + fibonacciTreeSize(larger)
    build(larger, base)
    build(k - 2, smallerBase)
    if (smallerBase < n) receives[base]!.push(smallerBase)
  }
  build(fibonacciOrder(n), 0)
  return planFromReceives('fibonacci', receives)
}

/** The plan of a static algorithm by name. */
export function staticReductionPlan(algorithm: StaticReductionAlgorithm, n: number): ReductionPlan {
  return algorithm === 'binomial' ? binomialPlan(n) : fibonacciPlan(n)
}
