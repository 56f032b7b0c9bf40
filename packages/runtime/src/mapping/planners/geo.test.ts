import { describe, expect, it } from 'vitest'
import { createRng } from '../../random/rng.ts'
import { CommMatrixBuilder } from '../comm-matrix.ts'
import { planMapping } from '../plan-mapping.ts'
import { type MappingProblem, mappingProblem, UNPINNED } from '../problem.ts'
import { groupSites } from '../site-groups.ts'
import { type SiteProfile, sphereCoordinates } from '../site-profile.ts'
import { type FillStep, fillSitesInOrder, latitudeLongitude, paperKappa, planGeo } from './geo.ts'
import { fillInGroupOrder } from './geo-legacy-fills.ts'

const MB = 1e6
const _ = UNPINNED

/** A symmetric traffic matrix from undirected pairs: `mb` MB each way, no message term. */
function pairs(n: number, list: readonly (readonly [number, number, number])[]) {
  const b = new CommMatrixBuilder(n)
  for (const [i, j, mb] of list) b.add(i, j, mb * MB, 0).add(j, i, mb * MB, 0)
  return b.build()
}

/**
 * Sites with no latency term and three bandwidths: `intra` on the diagonal, `near` between two
 * sites of the same `region`, `far` across regions. So a mapping's cost is
 * 2 · (bytes kept in a site / intra + bytes between near sites / near + bytes between far sites / far).
 */
function profileOf(
  region: readonly number[],
  nodes: number[],
  coordinates: number[][],
  bw = { intra: 1e9, near: 1e8, far: 1e7 },
): SiteProfile {
  const m = region.length
  return {
    name: 'hand',
    sites: region.map((_, s) => `s${s}`),
    latency: region.map(() => region.map(() => 0)),
    bandwidth: region.map((r, s) => region.map((q, t) => (s === t ? bw.intra : r === q ? bw.near : bw.far))),
    coordinates: coordinates.slice(0, m),
    nodes,
  }
}

/** (kind, process, site) triples, for a readable comparison. */
const steps = (p: MappingProblem, order: number[][]) => {
  const out: [FillStep['kind'], number, number][] = []
  fillSitesInOrder(p, order, (s) => out.push([s.kind, s.process, s.site]))
  return out
}

describe('geo = Algorithm 1 as published (Zhou & He, SC17, §4.2)', () => {
  // Four sites, two regions on (latitude, longitude): Europe {s0, s1} and North America {s2, s3}.
  // With κ = 2, K-means groups them A = {s0, s1}, B = {s2, s3}, whichever two sites Forgy draws.
  const latLon = [
    [50, 0], // s0
    [52, 4], // s1
    [40, -75], // s2
    [38, -78], // s3
  ]
  // Nodes: s0 2, s1 4, s2 2, s3 2. Rank 7 is pinned to s1, so s1 has 3 available nodes (line 5).
  // Traffic (MB each way): 0–1 100, 1–2 90, 2–3 20, 3–4 80, 4–5 70, 5–6 10, 6–7 60, 0–5 5.
  // Totals (communication quantity, MB each way): r0 105, r1 190, r2 110, r3 100, r4 150,
  // r5 85, r6 70, r7 60.
  const matrix = pairs(8, [
    [0, 1, 100],
    [1, 2, 90],
    [2, 3, 20],
    [3, 4, 80],
    [4, 5, 70],
    [5, 6, 10],
    [6, 7, 60],
    [0, 5, 5],
  ])
  const profile = profileOf([0, 0, 1, 1], [2, 4, 2, 2], latLon)
  const p = mappingProblem(matrix, profile, [_, _, _, _, _, _, _, 1])
  const A = [0, 1]
  const B = [2, 3]

  it('K-means on (latitude, longitude) gives the two regions for every Forgy draw; unit-sphere coordinates read back as degrees', () => {
    const rng = createRng(11)
    for (let t = 0; t < 20; t++) expect(groupSites(latLon, 2, rng)).toEqual([A, B])
    const sphere = latLon.map(([lat, lon]) => sphereCoordinates(lat!, lon!))
    latitudeLongitude(sphere).forEach(([lat, lon], s) => {
      expect(lat).toBeCloseTo(latLon[s]![0]!, 9)
      expect(lon).toBeCloseTo(latLon[s]![1]!, 9)
    })
    // Anything else is clustered as given.
    expect(latitudeLongitude(latLon)).toEqual(latLon)
  })

  it('order θ = (A, B): the fill order worked out by hand', () => {
    expect(steps(p, [A, B])).toEqual([
      // Lines 4–6: rank 7 to s1; s1 now has 3 available nodes, s0 2, s2 2, s3 2.
      ['pin', 7, 1],
      // Group A. Line 10: s1 (3 available) before s0 (2). Line 9: the heaviest rank, r1 (190).
      ['seed', 1, 1],
      // Lines 12–14, two more for s1: traffic to {r7, r1}: r0 100, r2 90, r6 60 → r0;
      ['fill', 0, 1],
      // then to {r7, r1, r0}: r2 90, r6 60, r5 5 → r2. s1 is full.
      ['fill', 2, 1],
      // s0: the heaviest unselected rank of {3, 4, 5, 6} is r4 (150);
      ['seed', 4, 0],
      // traffic to {r4}: r3 80, r5 70 → r3. s0 is full; group A done.
      ['fill', 3, 0],
      // Group B: s2 and s3 both have 2 available nodes → the lower index, s2. Heaviest left: r5 (85);
      ['seed', 5, 2],
      // then r6 (10 to r5). Every rank is placed; s3 stays empty.
      ['fill', 6, 2],
    ])
  })

  it('order θ = (B, A): the fill order worked out by hand', () => {
    expect(steps(p, [B, A])).toEqual([
      ['pin', 7, 1],
      // Group B: s2 (2, lower index than s3's 2) takes the heaviest rank r1, then r0 (100 to r1; r2 has 90).
      ['seed', 1, 2],
      ['fill', 0, 2],
      // s3: heaviest left r4 (150), then r3 (80 to r4; r5 has 70).
      ['seed', 4, 3],
      ['fill', 3, 3],
      // Group A: s1 (3 available) before s0. Heaviest left of {2, 5, 6}: r2 (110).
      ['seed', 2, 1],
      // Traffic to {r7, r2}: r6 60 (to the pinned r7), r5 0 → r6; then r5 (10 to r6). s0 stays empty.
      ['fill', 6, 1],
      ['fill', 5, 1],
    ])
  })

  it('tries both orders and keeps the cheaper by the α-β cost', () => {
    // θ = (A, B): sites {7,1,0,2} {4,3} {5,6}: kept in a site 0–1 100, 1–2 90, 3–4 80, 5–6 10;
    // between near sites (s0–s1) 2–3 20; between far sites 4–5 70, 6–7 60, 0–5 5.
    const costAB = 2 * MB * ((100 + 90 + 80 + 10) / 1e9 + 20 / 1e8 + (70 + 60 + 5) / 1e7)
    // θ = (B, A): sites {1,0} {4,3} {7,2,6,5}: kept 0–1 100, 3–4 80, 5–6 10, 6–7 60;
    // near (s2–s3) none; far 1–2 90, 2–3 20, 4–5 70, 0–5 5.
    const costBA = 2 * MB * ((100 + 80 + 10 + 60) / 1e9 + (90 + 20 + 70 + 5) / 1e7)
    expect(costAB).toBeLessThan(costBA)
    const seen: number[] = []
    const geo = planGeo(p, latLon, createRng(3), { kappa: 2, onFill: (_s, cost) => seen.push(cost) })
    expect(geo.ordersTried).toBe(2)
    expect(seen.map((c) => c / MB)).toEqual([costAB / MB, costBA / MB].map((c) => expect.closeTo(c, 9)))
    expect(geo.cost).toBeCloseTo(costAB, 9)
    expect(geo.groupOrder).toEqual([A, B])
    expect(Array.from(geo.siteOf)).toEqual([1, 1, 1, 0, 0, 2, 2, 1])
    // The same from the unit-sphere coordinates a built-in profile carries.
    const sphere = latLon.map(([lat, lon]) => sphereCoordinates(lat!, lon!))
    expect(Array.from(planGeo(p, sphere, createRng(4), { kappa: 2 }).siteOf)).toEqual([
      1, 1, 1, 0, 0, 2, 2, 1,
    ])
  })

  it('κ: min(M, 4) unless told, so up to four sites every site order is tried', () => {
    expect([1, 2, 3, 4, 5, 9].map(paperKappa)).toEqual([1, 2, 3, 4, 4, 4])
    const geo = planGeo(p, latLon, createRng(5))
    expect(geo.kappa).toBe(4)
    expect(geo.ordersTried).toBe(24)
    expect(() => planGeo(p, latLon, createRng(5), { kappa: 0 })).toThrow(RangeError)
  })

  it('tie-breaks: equal totals → lowest rank; equal available nodes → lowest site; no traffic to the site → the heaviest rank left', () => {
    const profile = profileOf([0, 1], [3, 1], latLon)
    // 0–1 10 MB, 2–3 12 MB: totals r0 10, r1 10, r2 12, r3 12.
    const q = mappingProblem(
      pairs(4, [
        [0, 1, 10],
        [2, 3, 12],
      ]),
      profile,
    )
    expect(steps(q, [[0, 1]])).toEqual([
      ['seed', 2, 0], // r2 and r3 tie at 12: the lower rank; s0 has the most nodes (3)
      ['fill', 3, 0], // 12 to r2
      ['fill', 0, 0], // nobody else talks to {r2, r3}: the heaviest left, r0 and r1 tie at 10 → r0
      ['seed', 1, 1],
    ])
    // Equal available nodes (2 and 2): s0 first. Equal traffic to the site: the heavier total first.
    // 0–1 10, 0–2 10, 2–3 3: totals r0 20, r1 10, r2 13, r3 3; r1 and r2 each send 10 to r0.
    const r = mappingProblem(
      pairs(4, [
        [0, 1, 10],
        [0, 2, 10],
        [2, 3, 3],
      ]),
      profileOf([0, 1], [2, 2], latLon),
    )
    expect(steps(r, [[0, 1]])).toEqual([
      ['seed', 0, 0],
      ['fill', 2, 0], // r2 (total 13) before r1 (total 10), both 10 to r0
      ['seed', 1, 1],
      ['fill', 3, 1],
    ])
  })

  it('differs from the former "cheapest α-β site" fill: line 10 takes the site with the most available nodes', () => {
    // One group {s0, s1}; s0 has 2 nodes and rank 4 is pinned there (1 available), s1 has 3.
    // Traffic (MB each way): 0–4 50, 0–1 40, 1–2 30, 2–3 20. Totals: r0 90, r1 70, r2 50, r3 20.
    const q = mappingProblem(
      pairs(5, [
        [0, 4, 50],
        [0, 1, 40],
        [1, 2, 30],
        [2, 3, 20],
      ]),
      profileOf([0, 1], [2, 3], latLon, { intra: 1e9, near: 1e7, far: 1e7 }),
      [_, _, _, _, 0],
    )
    // Published: r0 (heaviest) seeds s1 (3 available > 1), away from its pinned partner r4;
    // s1 takes r1 (40 to r0), then r2 (30 to r1); s0's one free node gets the heaviest left, r3.
    const published = [1, 1, 1, 0, 0]
    expect(Array.from(fillSitesInOrder(q, [[0, 1]]))).toEqual(published)
    expect(Array.from(planGeo(q, latLon, createRng(1), { kappa: 1 }).siteOf)).toEqual(published)
    // Former fill: r0 (most traffic to the placed ranks: 50 to r4) goes to the group's site where
    // its links cost least, s0 beside r4; s0 is then full and r1, r2, r3 go to s1.
    expect(Array.from(fillInGroupOrder(q, [[0, 1]], 'tie'))).toEqual([0, 1, 1, 1, 0])
  })
})

describe('the planner table', () => {
  it('lists geo and geo-refined, geo-refined at most geo', () => {
    const r = planMapping({ profile: 'ec2-4', pattern: 'lu', processes: 16, constraintRatio: 0.2, seed: 2 })
    expect(r.plans.map((x) => x.algorithm)).toEqual(['geo', 'geo-refined', 'greedy', 'mpipp', 'random'])
    const cost = (a: string) => r.plans.find((x) => x.algorithm === a)!.cost
    expect(cost('geo-refined')).toBeLessThanOrEqual(cost('geo'))
  })
})
