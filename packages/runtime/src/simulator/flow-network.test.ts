import { describe, expect, it } from 'vitest'
import { maxMinRates, type SimLink, simulateTransfers } from './flow-network.ts'

const link = (name: string, bandwidth: number, latency = 0): SimLink => ({ name, bandwidth, latency })

describe('maxMinRates', () => {
  it('shares one link equally', () => {
    expect(Array.from(maxMinRates([link('a', 90)], [[0], [0], [0]]))).toEqual([30, 30, 30])
  })

  it('gives the unused share of a bottlenecked flow to the others (textbook case)', () => {
    // Links A (10) and B (4). Flow 0 uses A and B, flow 1 uses A, flow 2 uses B.
    // B is the bottleneck: flows 0 and 2 get 2 each; flow 1 gets A's remaining 10 − 2 = 8.
    const rates = maxMinRates([link('A', 10), link('B', 4)], [[0, 1], [0], [1]])
    expect(Array.from(rates)).toEqual([2, 8, 2])
  })

  it('is max-min fair on a parking-lot topology', () => {
    // Three links of capacity 6 in a row; the long flow crosses all, one short flow per link.
    // Every link carries two flows: each gets 3.
    const rates = maxMinRates([link('1', 6), link('2', 6), link('3', 6)], [[0, 1, 2], [0], [1], [2]])
    expect(Array.from(rates)).toEqual([3, 3, 3, 3])
  })
})

describe('simulateTransfers', () => {
  it('costs α + n·β for one message', () => {
    const r = simulateTransfers([link('l', 1e9, 1e-4)], [{ path: [0], bytes: 5e8, startup: 1e-5 }])
    expect(r.makespan).toBeCloseTo(1e-4 + 1e-5 + 0.5, 12)
  })

  it('slows a flow while another shares its link, then speeds it up (hand-computed)', () => {
    // Link 100 B/s. Flow 0: 100 B from t=0. Flow 1: 20 B. Both share 50/50 until flow 1 ends at
    // t = 0.4 (flow 0 has 80 left), then flow 0 alone: 0.8 s more → ends at 1.2 s.
    const r = simulateTransfers(
      [link('l', 100)],
      [
        { path: [0], bytes: 100 },
        { path: [0], bytes: 20 },
      ],
    )
    expect(r.finish[1]).toBeCloseTo(0.4, 12)
    expect(r.finish[0]).toBeCloseTo(1.2, 12)
  })

  it('honours dependencies: a store-and-forward relay costs twice a hop, a pipelined one about once', () => {
    const links = [link('a→b', 1000), link('b→c', 1000)]
    const relay = simulateTransfers(links, [
      { path: [0], bytes: 1000 },
      { path: [1], bytes: 1000, after: [0] },
    ])
    expect(relay.makespan).toBeCloseTo(2, 12)
    // 10 chunks of 100 B: (p + k − 1) · nβ/k with 2 hops and k = 10 → 11 · 0.1 = 1.1 s.
    const chunks = Array.from({ length: 10 }, (_, i) => i)
    const transfers = [
      ...chunks.map((i) => ({ path: [0], bytes: 100, after: i > 0 ? [i - 1] : [] })),
      ...chunks.map((i) => ({ path: [1], bytes: 100, after: i > 0 ? [i, 10 + i - 1] : [i] })),
    ]
    expect(simulateTransfers(links, transfers).makespan).toBeCloseTo(1.1, 12)
  })

  it('reports bytes per link and rejects cycles', () => {
    const r = simulateTransfers([link('a', 10), link('b', 10)], [{ path: [0, 1], bytes: 30 }])
    expect(Array.from(r.linkBytes)).toEqual([30, 30])
    expect(() =>
      simulateTransfers(
        [link('a', 10)],
        [
          { path: [0], bytes: 1, after: [1] },
          { path: [0], bytes: 1, after: [0] },
        ],
      ),
    ).toThrow(/cycle/)
  })
})
