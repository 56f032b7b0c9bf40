import type { Rng } from '../random/rng.ts'

/**
 * Groups sites by K-means on their coordinates (Lloyd's iterations from a Forgy start: κ distinct
 * sites drawn as the first centroids), as Algorithm 1 does before ordering groups. Returns the
 * non-empty groups, each a list of site indices in increasing order, ordered by their first site.
 */
export function groupSites(coordinates: readonly (readonly number[])[], kappa: number, rng: Rng): number[][] {
  const m = coordinates.length
  const k = Math.min(kappa, m)
  const dim = coordinates[0]?.length ?? 0
  // Forgy: κ distinct sites as centroids (a partial Fisher–Yates draw).
  const pool = Array.from({ length: m }, (_, s) => s)
  for (let c = 0; c < k; c++) {
    const j = c + rng.int(m - c)
    ;[pool[c], pool[j]] = [pool[j]!, pool[c]!]
  }
  const centroids = pool.slice(0, k).map((s) => [...coordinates[s]!])
  const label = new Int32Array(m).fill(-1)
  for (let iter = 0; iter < 100; iter++) {
    let changed = false
    for (let s = 0; s < m; s++) {
      let best = 0
      let bestDist = Number.POSITIVE_INFINITY
      centroids.forEach((c, g) => {
        let d = 0
        for (let x = 0; x < dim; x++) d += (coordinates[s]![x]! - c[x]!) ** 2
        if (d < bestDist) {
          best = g
          bestDist = d
        }
      })
      if (label[s] !== best) {
        label[s] = best
        changed = true
      }
    }
    if (!changed) break
    centroids.forEach((c, g) => {
      const members = [...label.keys()].filter((s) => label[s] === g)
      if (members.length === 0) return // an empty group keeps its centroid
      for (let x = 0; x < dim; x++)
        c[x] = members.reduce((sum, s) => sum + coordinates[s]![x]!, 0) / members.length
    })
  }
  const groups = centroids.map((_, g) => [...label.keys()].filter((s) => label[s] === g))
  return groups.filter((g) => g.length > 0).sort((a, b) => a[0]! - b[0]!)
}

/** Every order of `items` (Heap's algorithm); κ ≤ 5 groups give at most 120 orders. */
export function permutations<T>(items: readonly T[]): T[][] {
  const a = [...items]
  const out: T[][] = [[...a]]
  const c = new Array<number>(a.length).fill(0)
  let i = 1
  while (i < a.length) {
    if (c[i]! < i) {
      const j = i % 2 === 0 ? 0 : c[i]!
      ;[a[j], a[i]] = [a[i]!, a[j]!]
      out.push([...a])
      c[i]!++
      i = 1
    } else {
      c[i] = 0
      i++
    }
  }
  return out
}
