import { describe, expect, it } from 'vitest'
import { broadcastSchedule } from '../collectives/schedules/broadcast-schedule.ts'
import { buildClusterNetwork } from './cluster-network.ts'
import { maxMinRates, type SimLink, simulateTransfers } from './flow-network.ts'
import { LAB_BASE_RTT_S, labClusterSpec, labWindowBytes } from './lab-cluster.ts'

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

describe('latency is propagation: paid once per hop of a pipeline, not once per chunk', () => {
  it('a 1 GB chain over one 20 ms link costs nβ + 20 ms whatever the chunk size', () => {
    // The case: before the fix 512 KiB chunks took 46 s (1,908 chunks × 20 ms in series).
    const bytes = 1e9
    const bw = 1e9 / 8
    for (const chunk of [512 * 1024, 64 * 1024 * 1024]) {
      const sends = broadcastSchedule('chain', [0, 1], bytes, chunk)
      const r = simulateTransfers(
        [link('a→b', bw, 0.02)],
        sends.map((s) => ({ path: [0], bytes: s.bytes, after: s.after, afterSent: s.afterSent })),
      )
      expect(r.makespan).toBeCloseTo(bytes / bw + 0.02, 9)
    }
  })

  it('a pipeline over h hops of latency L pays h·L once, plus one chunk time per extra hop', () => {
    const hops = 4
    const L = 0.01
    const bw = 1000
    const links = Array.from({ length: hops }, (_, i) => link(`l${i}`, bw, L))
    const sends = broadcastSchedule('chain', [0, 1, 2, 3, 4], 1000, 100)
    const r = simulateTransfers(
      links,
      sends.map((s) => ({ path: [s.from], bytes: s.bytes, after: s.after, afterSent: s.afterSent })),
    )
    // (k + h − 1) chunk times of 0.1 s on the wire, and h latencies: 1.3 + 0.04.
    expect(r.makespan).toBeCloseTo((10 + hops - 1) * 0.1 + hops * L, 9)
  })
})

describe('window-limited flows (caps)', () => {
  it('a capped flow takes its cap; the others share what it leaves', () => {
    const rates = maxMinRates([link('l', 100)], [[0], [0], [0]], [10, Number.POSITIVE_INFINITY, 60])
    expect(Array.from(rates)).toEqual([10, 45, 45])
  })
  it('a transfer at its cap takes bytes / cap', () => {
    const r = simulateTransfers([link('l', 1000)], [{ path: [0], bytes: 100, maxRate: 50 }])
    expect(r.makespan).toBeCloseTo(2, 12)
  })
})

describe('the lab model', () => {
  it('caps a connection at window / RTT: 8 KiB buffers over 5 ms hops', () => {
    const spec = labClusterSpec(
      { racks: 1, hostsPerRack: 2, nodeMbps: 100, uplinkMbps: 200, delayMs: 5, tcpBufferKb: 8 },
      2,
    )
    const net = buildClusterNetwork(spec)
    const rtt = 2 * 0.005 + LAB_BASE_RTT_S
    expect(net.rateCap!(0, 1)).toBeCloseTo(labWindowBytes(8) / rtt, 6)
    expect(labWindowBytes(8)).toBeCloseTo(8192 * 0.285, 9)
    // Between measured points the fraction is interpolated; past them it is clamped.
    expect(labWindowBytes(1024) / (1024 * 1024)).toBeCloseTo(0.53, 9)
    expect(labWindowBytes(11) / (11 * 1024)).toBeGreaterThan(0.285)
    expect(labWindowBytes(11) / (11 * 1024)).toBeLessThan(0.42)
    // Without a buffer limit no cap.
    expect(
      buildClusterNetwork(labClusterSpec({ racks: 1, hostsPerRack: 2, nodeMbps: 100, uplinkMbps: 200 }, 2))
        .rateCap,
    ).toBeUndefined()
  })
})
