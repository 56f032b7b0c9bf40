import type { Rng } from '../../random/rng.ts'
import { type MappingProblem, UNPINNED } from '../problem.ts'

/**
 * Draws random mappings that honour the pins: every free node is equally likely for every
 * unpinned rank (a uniform draw over node assignments). Reuses its buffers, so a Monte Carlo
 * search of 100,000 draws allocates nothing per draw; the returned array is overwritten by the
 * next call.
 */
export function randomMappingSampler(p: MappingProblem, rng: Rng): () => Int32Array {
  const n = p.comm.processes
  const siteOf = new Int32Array(n)
  const freeRanks: number[] = []
  const slots: number[] = []
  const left = Int32Array.from(p.capacity)
  for (let i = 0; i < n; i++) {
    if (p.pinned[i] === UNPINNED) freeRanks.push(i)
    else {
      siteOf[i] = p.pinned[i]!
      left[p.pinned[i]!]!--
    }
  }
  left.forEach((free, s) => {
    for (let c = 0; c < free; c++) slots.push(s)
  })
  const slotArray = Int32Array.from(slots)
  const ranks = Int32Array.from(freeRanks)
  return () => {
    // Partial Fisher–Yates: the first |ranks| slots of a uniform shuffle.
    for (let r = 0; r < ranks.length; r++) {
      const j = r + rng.int(slotArray.length - r)
      const t = slotArray[r]!
      slotArray[r] = slotArray[j]!
      slotArray[j] = t
      siteOf[ranks[r]!] = slotArray[r]!
    }
    return siteOf
  }
}

/** One random mapping (a fresh array). */
export function planRandom(p: MappingProblem, rng: Rng): Int32Array {
  return randomMappingSampler(p, rng)().slice()
}
