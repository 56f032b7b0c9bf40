import type { MappingProblem } from './problem.ts'

/**
 * Adds `sign` × the cost of rank i's links, i placed at `siteOfI`, to every neighbour j's row of
 * `table` (N × M): `table[j·M + s]` is then what j would pay towards i if j ran at site s.
 * Both directions of a pair are priced, on asymmetric links. O(degree(i) · M).
 */
export function addNeighbourTerms(
  p: MappingProblem,
  table: Float64Array,
  i: number,
  siteOfI: number,
  sign: 1 | -1,
): void {
  const nl = p.neighbours
  const m = p.sites
  const L = p.latency
  const iB = p.inverseBandwidth
  for (let k = nl.rowStart[i]!; k < nl.rowStart[i + 1]!; k++) {
    const row = nl.col[k]! * m
    const aOut = nl.outMessages[k]!
    const cOut = nl.outVolume[k]!
    const aIn = nl.inMessages[k]!
    const cIn = nl.inVolume[k]!
    for (let s = 0; s < m; s++) {
      const there = siteOfI * m + s // i → j runs from i's site to s
      const back = s * m + siteOfI
      table[row + s]! += sign * (aOut * L[there]! + cOut * iB[there]! + aIn * L[back]! + cIn * iB[back]!)
    }
  }
}

/** The cost of the pair (i, j) when i runs at x and j at y, from i's neighbour entry k. */
export function pairCost(p: MappingProblem, k: number, x: number, y: number): number {
  const nl = p.neighbours
  const m = p.sites
  const there = x * m + y
  const back = y * m + x
  return (
    nl.outMessages[k]! * p.latency[there]! +
    nl.outVolume[k]! * p.inverseBandwidth[there]! +
    nl.inMessages[k]! * p.latency[back]! +
    nl.inVolume[k]! * p.inverseBandwidth[back]!
  )
}

const weightCache = new WeakMap<MappingProblem, Float64Array>()

/**
 * How strongly two ranks are tied, in bytes, per neighbour entry: the volume both ways plus each
 * message counted as the bytes a mean inter-site link carries during one latency (so
 * latency-bound traffic weighs). Computed once per problem.
 */
export function pairWeights(p: MappingProblem): Float64Array {
  const cached = weightCache.get(p)
  if (cached) return cached
  const nl = p.neighbours
  const m = p.sites
  let sum = 0
  let links = 0
  for (let s = 0; s < m; s++)
    for (let t = 0; t < m; t++)
      if (s !== t || m === 1) {
        sum += p.latency[s * m + t]! / p.inverseBandwidth[s * m + t]!
        links++
      }
  const bytesPerMessage = sum / links
  const weights = new Float64Array(nl.col.length)
  for (let k = 0; k < weights.length; k++)
    weights[k] =
      nl.outVolume[k]! + nl.inVolume[k]! + (nl.outMessages[k]! + nl.inMessages[k]!) * bytesPerMessage
  weightCache.set(p, weights)
  return weights
}

/**
 * A complete mapping's cost table, kept current as ranks move (the local searches' state):
 * `table[i·M + s]` is what rank i's links cost if i ran at s, `free[s]` the site's free nodes.
 * `move(i, to)` updates `siteOf` in place. O(non-zeros · M) to build, O(degree · M) a move.
 */
export function mappingTable(p: MappingProblem, siteOf: Int32Array) {
  const n = p.comm.processes
  const table = new Float64Array(n * p.sites)
  const free = Int32Array.from(p.capacity)
  for (let i = 0; i < n; i++) {
    addNeighbourTerms(p, table, i, siteOf[i]!, 1)
    free[siteOf[i]!]!--
  }
  const move = (i: number, to: number) => {
    addNeighbourTerms(p, table, i, siteOf[i]!, -1)
    free[siteOf[i]!]!++
    siteOf[i] = to
    addNeighbourTerms(p, table, i, to, 1)
    free[to]!--
  }
  return { table, free, move }
}
