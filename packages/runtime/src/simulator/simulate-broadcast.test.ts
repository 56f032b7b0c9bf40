import { describe, expect, it } from 'vitest'
import { buildClusterNetwork, type ClusterSpec } from './cluster-network.ts'
import { simulateBroadcast } from './simulate-broadcast.ts'

const GBIT = 1e9 / 8 // bytes per second of 1 Gbit/s

function cluster(racks: number, perRack: number, nic = GBIT, uplink = 10 * GBIT, alpha = 0): ClusterSpec {
  return {
    nodes: Array.from({ length: racks * perRack }, (_, i) => ({
      name: `n${i}`,
      rack: Math.floor(i / perRack),
      nicBandwidth: nic,
      nicLatency: alpha,
    })),
    racks: Array.from({ length: racks }, (_, r) => ({
      name: `r${r}`,
      site: 0,
      uplinkBandwidth: uplink,
      uplinkLatency: 0,
    })),
  }
}

const range = (p: number) => Array.from({ length: p }, (_, i) => i)

describe('simulateBroadcast on one switch matches the closed forms of docs/simulator.md', () => {
  const n = 1e8 // bytes
  const beta = 1 / GBIT
  const alpha = 5e-5
  for (const p of [2, 5, 16]) {
    const net = buildClusterNetwork(cluster(1, p, GBIT, 10 * GBIT, alpha))
    it(`simple, p=${p}: (p − 1)·nβ (+ α)`, () => {
      const t = simulateBroadcast(net, 'simple', range(p), n, n, 0).seconds
      expect(t).toBeCloseTo((p - 1) * n * beta + alpha, 6)
    })
    it(`chain, p=${p}: (k + p − 2)(α + nβ/k)`, () => {
      const k = 100
      const t = simulateBroadcast(net, 'chain', range(p), n, n / k, 0).seconds
      const closed = (k + p - 2) * (alpha + (n * beta) / k)
      expect(Math.abs(t - closed) / closed).toBeLessThan(0.02)
    })
    it(`mst, p=${p}: ⌈log₂ p⌉·nβ (the root feeds ⌈log₂ p⌉ subtrees)`, () => {
      const t = simulateBroadcast(net, 'mst', range(p), n, n / 200, 0).seconds
      const closed = Math.ceil(Math.log2(p)) * n * beta
      expect(Math.abs(t - closed) / closed).toBeLessThan(0.02)
    })
    it(`bucket, p=${p}: about 2·nβ(p − 1)/p`, () => {
      const t = simulateBroadcast(net, 'bucket', range(p), n, n / 200, 0).seconds
      const closed = (2 * (p - 1) * n * beta) / p
      expect(Math.abs(t - closed) / closed).toBeLessThan(0.02)
    })
  }
})

describe('simulateBroadcast across racks', () => {
  it('a rack-ordered chain crosses R − 1 uplinks; a random chain runs at its most shared uplink', () => {
    const racks = 3
    const perRack = 10
    const uplink = 2 * GBIT
    const net = buildClusterNetwork(cluster(racks, perRack, GBIT, uplink))
    const bytes = 1e8
    const ordered = range(racks * perRack)
    const ranked = simulateBroadcast(net, 'chain', ordered, bytes, bytes / 400)
    expect(ranked.crossRackBytes).toBe((racks - 1) * bytes)
    // A fixed pseudo-random permutation (LCG), independent of the code under test.
    const shuffled = [...ordered]
    let s = 12345
    for (let i = shuffled.length - 1; i > 0; i--) {
      s = (s * 1103515245 + 12345) % 2 ** 31
      const j = s % (i + 1)
      ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
    }
    // Independent estimate: each hop leaving (entering) rack r shares r's uplink (downlink), so
    // the pipeline moves at min(NIC, uplink / most hops on one uplink direction).
    const up = new Array<number>(racks).fill(0)
    const down = new Array<number>(racks).fill(0)
    for (let i = 1; i < shuffled.length; i++) {
      const a = Math.floor(shuffled[i - 1]! / perRack)
      const b = Math.floor(shuffled[i]! / perRack)
      if (a !== b) {
        up[a]!++
        down[b]!++
      }
    }
    const rate = Math.min(GBIT, uplink / Math.max(...up, ...down))
    const random = simulateBroadcast(net, 'chain', shuffled, bytes, bytes / 400)
    const expectedRatio = GBIT / rate
    expect(expectedRatio).toBeGreaterThan(2)
    expect(Math.abs(random.seconds / ranked.seconds - expectedRatio) / expectedRatio).toBeLessThan(0.1)
  })

  it('mst is store-and-forward, as the runtime sends: across two racks its last round shares the uplink', () => {
    // 8 nodes, racks {0..3} and {4..7}, uplink = 2 NICs. Rounds 1 and 2 stay in rack 0
    // (nβ each, whole messages); in round 3 nodes 0–3 send to 4–7 at once, four flows on one
    // 2-NIC uplink: 2nβ. Total 4nβ (a pipelined schedule would overlap the rounds).
    const net = buildClusterNetwork(cluster(2, 4, GBIT, 2 * GBIT))
    const n = 1e7
    const t = simulateBroadcast(net, 'mst', range(8), n, n / 50).seconds
    expect(t).toBeCloseTo((4 * n) / GBIT, 6)
    // simple sends to one receiver after another: the k-th receiver is done at k·nβ.
    const simple = simulateBroadcast(net, 'simple', range(8), n, n / 50).seconds
    expect(simple).toBeCloseTo((7 * n) / GBIT, 6)
  })
})
