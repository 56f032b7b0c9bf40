import { describe, expect, it } from 'vitest'
import type { ScheduledSend } from './broadcast-schedule.ts'
import {
  allToAllSchedule,
  centroidBlocks,
  gatherSchedule,
  regroupSchedule,
  ringAllGatherSchedule,
  ringReduceScatterSchedule,
} from './regroup-schedule.ts'

/**
 * Which ranks' partials each send carries, following the data through the schedule: a send of
 * block b from rank r carries r's own partial plus whatever the sends it waits for delivered of
 * block b to r. Dependencies that are missing show up as missing contributions.
 */
function contributions(sends: readonly ScheduledSend[]): Set<number>[] {
  const carried: Set<number>[] = []
  sends.forEach((s, i) => {
    const set = new Set([s.from])
    for (const a of s.after) {
      expect(a).toBeLessThan(i)
      const y = sends[a]!
      if (y.to === s.from && y.piece === s.piece) for (const r of carried[a]!) set.add(r)
    }
    carried.push(set)
  })
  return carried
}

/** What rank `rank` knows of block b at the end: its own partial plus everything sent to it. */
function known(sends: readonly ScheduledSend[], rank: number, block: number): Set<number> {
  const carried = contributions(sends)
  const set = new Set([rank])
  sends.forEach((s, i) => {
    if (s.to === rank && s.piece === block) for (const r of carried[i]!) set.add(r)
  })
  return set
}

const ring = [0, 3, 1, 4, 2]
const p = ring.length
const all = [0, 1, 2, 3, 4]

describe('centroidBlocks', () => {
  it('splits k centroids into p blocks differing by at most one', () => {
    for (const [k, parts] of [
      [10, 3],
      [7, 7],
      [3, 5],
      [1000, 24],
    ] as const) {
      const b = centroidBlocks(k, parts)
      expect(b.reduce((a, x) => a + x, 0)).toBe(k)
      expect(Math.max(...b) - Math.min(...b)).toBeLessThanOrEqual(1)
    }
  })
})

describe('ring reduce-scatter and all-gather', () => {
  const bytes = [10, 20, 30, 40, 50]

  it('reduce-scatter: each block reaches its owner with every rank’s partial, in p − 1 steps', () => {
    const rs = ringReduceScatterSchedule(ring, bytes)
    expect(rs.sends).toHaveLength(p * (p - 1))
    expect(new Set(rs.owner)).toEqual(new Set(all))
    for (let b = 0; b < p; b++) expect([...known(rs.sends, rs.owner[b]!, b)].sort()).toEqual(all)
    // Each send carries its block's size, to the next rank on the ring.
    for (const s of rs.sends) {
      expect(s.bytes).toBe(bytes[s.piece])
      expect(ring.indexOf(s.to)).toBe((ring.indexOf(s.from) + 1) % p)
    }
  })

  it('all-gather after it: every rank ends with every fully reduced block', () => {
    const rs = ringReduceScatterSchedule(ring, bytes)
    const ar = ringAllGatherSchedule(ring, bytes, rs)
    expect(ar).toHaveLength(2 * p * (p - 1))
    for (const r of all)
      for (let b = 0; b < p; b++) expect([...known(ar, r, b)].sort(), `rank ${r} block ${b}`).toEqual(all)
  })
})

describe('regroupSchedule', () => {
  const bytes = [8, 8, 16, 16, 24]
  const slots = [1, 2, 3, 4, 5]

  it('three-stage: an all-to-all of blocks to their owners, then a gather at the driver', () => {
    const { regroup, combine } = regroupSchedule('three-stage', ring, bytes, slots)
    expect(regroup).toEqual(allToAllSchedule(p, (_, to) => bytes[to]!))
    expect(regroup).toHaveLength(p * (p - 1))
    for (let j = 0; j < p; j++) expect([...known(regroup, j, j)].sort()).toEqual(all)
    expect(combine).toEqual(gatherSchedule(0, bytes))
    expect(combine.map((s) => [s.from, s.to, s.bytes])).toEqual([
      [1, 0, 8],
      [2, 0, 16],
      [3, 0, 16],
      [4, 0, 24],
    ])
  })

  it('direct: each node sends one block per map task', () => {
    const { regroup } = regroupSchedule('direct', ring, bytes, slots)
    for (const s of regroup) expect(s.bytes).toBe(slots[s.from]! * bytes[s.to]!)
  })

  it('ring gathers what each owner holds; allreduce needs no combine', () => {
    const three = regroupSchedule('ring', ring, bytes, slots)
    expect(three.regroup).toHaveLength(p * (p - 1))
    expect(three.combine.reduce((a, s) => a + s.bytes, 0) + (bytes[1] ?? 0)).toBe(
      bytes.reduce((a, b) => a + b, 0),
    )
    const ar = regroupSchedule('allreduce', ring, bytes, slots)
    expect(ar.regroup).toHaveLength(2 * p * (p - 1))
    expect(ar.combine).toEqual([])
  })
})
