import type { Rng } from '../../random/rng.ts'
import { type MappingProblem, mappingCost, UNPINNED } from '../problem.ts'
import { mappingTable, pairCost } from '../site-terms.ts'
import { randomMappingSampler } from './random.ts'

/** MPIPP's search effort: random starts, and a wall-clock bound for large instances. */
export interface MpippOptions {
  /** Random initial mappings refined (Chen et al. restart from several). Default 4. */
  restarts?: number
  /** Stop refining after this many ms (the best mapping so far is kept). Default 20,000. */
  maxMs?: number
  now?: () => number
}

/** MPIPP's result: the best refined mapping and whether the time bound cut the search short. */
export interface MpippPlan {
  siteOf: Int32Array
  cost: number
  truncated: boolean
}

/**
 * MPIPP (Chen et al., "MPIPP: an automatic profile-guided parallel process placement toolset
 * for SMP clusters and multiclusters", ICS 2006): from a random mapping, Kernighan–Lin passes of
 * pairwise exchanges. In a pass, the exchange of two unlocked ranks on different sites that
 * lowers the cost most (or raises it least) is made and both are locked, until no pair is left;
 * the pass then keeps the prefix of exchanges with the largest total gain. Passes repeat while
 * they gain; the best of `restarts` random starts is returned. Pinned ranks never move; a rank
 * may also move alone to a free node. Each pass is O(N² · passes) with per-site cost tables.
 */
export function planMpipp(p: MappingProblem, rng: Rng, o: MpippOptions = {}): MpippPlan {
  const now = o.now ?? Date.now
  const deadline = now() + (o.maxMs ?? 20_000)
  const draw = randomMappingSampler(p, rng)
  let best: MpippPlan | undefined
  for (let r = 0; r < (o.restarts ?? 4); r++) {
    if (best && now() > deadline) break
    const siteOf = draw().slice()
    const truncated = kernighanLinPasses(p, siteOf, () => now() > deadline)
    const cost = mappingCost(p, siteOf)
    if (!best || cost < best.cost) best = { siteOf, cost, truncated }
    if (truncated) break
  }
  return best!
}

/**
 * Kernighan–Lin passes on `siteOf` in place (MPIPP's refinement, from any start); true when
 * `late()` stopped them. Each pass keeps its best prefix, so the cost never rises. Passes stop
 * once one gains no more than `minPassGain` seconds (default 0: while any pass gains).
 */
export function kernighanLinPasses(
  p: MappingProblem,
  siteOf: Int32Array,
  late: () => boolean,
  minPassGain = 0,
): boolean {
  const n = p.comm.processes
  const m = p.sites
  const nl = p.neighbours
  const { table, free, move } = mappingTable(p, siteOf)
  // corr[j]: the pair term of exchanging i with neighbour j (scratch, reset after each i).
  const corr = new Float64Array(n)
  const locked = new Uint8Array(n)
  const movable: number[] = []
  for (let i = 0; i < n; i++) if (p.pinned[i] === UNPINNED) movable.push(i)
  // Gains below a billionth of the cost are rounding noise: counted as gains, exchanges that undo
  // each other would make passes forever (seen with uneven site capacities: 20 s and `truncated`).
  const noise = 1e-9 * mappingCost(p, siteOf)
  for (;;) {
    locked.fill(0)
    const steps: [number, number, number, number][] = [] // i, j (−1: a move), site of i before, of j before
    let gain = 0
    let bestGain = 0
    let bestPrefix = 0
    for (let step = 0; step < movable.length; step++) {
      if (late()) {
        undo(steps, bestPrefix)
        return true
      }
      let bi = -1
      let bj = -1
      let bTo = -1
      let bDelta = Number.POSITIVE_INFINITY
      for (const i of movable) {
        if (locked[i]) continue
        const a = siteOf[i]!
        const rowI = i * m
        for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) {
          const j = nl.col[k]!
          const b = siteOf[j]!
          if (b !== a)
            corr[j] =
              pairCost(p, k, a, b) + pairCost(p, k, b, a) - pairCost(p, k, a, a) - pairCost(p, k, b, b)
        }
        // Moves to a free node.
        for (let b = 0; b < m; b++)
          if (b !== a && free[b]! > 0) {
            const d = table[rowI + b]! - table[rowI + a]!
            if (d < bDelta) [bi, bj, bTo, bDelta] = [i, -1, b, d]
          }
        for (const j of movable) {
          if (j <= i || locked[j]) continue
          const b = siteOf[j]!
          if (b === a) continue
          const d = table[rowI + b]! - table[rowI + a]! + table[j * m + a]! - table[j * m + b]! + corr[j]!
          if (d < bDelta) [bi, bj, bTo, bDelta] = [i, j, b, d]
        }
        for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) corr[nl.col[k]!] = 0
      }
      if (bi < 0) break
      const a = siteOf[bi]!
      steps.push([bi, bj, a, bTo])
      move(bi, bTo)
      locked[bi] = 1
      if (bj >= 0) {
        move(bj, a)
        locked[bj] = 1
      }
      gain -= bDelta
      if (gain > bestGain + noise) {
        bestGain = gain
        bestPrefix = steps.length
      }
    }
    undo(steps, bestPrefix)
    if (bestPrefix === 0 || bestGain <= Math.max(minPassGain, noise)) return false
  }

  function undo(steps: [number, number, number, number][], keep: number) {
    for (let s = steps.length - 1; s >= keep; s--) {
      const [i, j, siteI, siteJ] = steps[s]!
      move(i, siteI)
      if (j >= 0) move(j, siteJ)
    }
  }
}
