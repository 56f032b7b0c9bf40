import { describe, expect, it } from 'vitest'
import { buildClusterNetwork, type ClusterSpec } from './cluster-network.ts'
import { type SimTransfer, simulateTransfers } from './flow-network.ts'
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

/** Most hops of a chain `order` on one uplink direction (out of or into a rack of `perRack` nodes). */
function busiestUplink(order: readonly number[], perRack: number): number {
  const up = new Map<number, number>()
  const down = new Map<number, number>()
  for (let i = 1; i < order.length; i++) {
    const a = Math.floor(order[i - 1]! / perRack)
    const b = Math.floor(order[i]! / perRack)
    if (a === b) continue
    up.set(a, (up.get(a) ?? 0) + 1)
    down.set(b, (down.get(b) ?? 0) + 1)
  }
  return Math.max(0, ...up.values(), ...down.values())
}

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

describe('simulateBroadcast with a TCP window matches the window-bound closed form', () => {
  const n = 1e8
  const alpha = 5e-5
  const baseRtt = 1e-4
  for (const [window, p] of [
    [8192, 5],
    [16384, 16],
  ] as const) {
    it(`chain, window ${window / 1024} KiB, p=${p}: (k + p − 2)(α + (n/k)·RTT/W), RTT = 2α + base`, () => {
      const net = buildClusterNetwork({
        ...cluster(1, p, GBIT, 10 * GBIT, alpha),
        tcpWindowBytes: window,
        baseRtt,
      })
      const k = 100
      const rate = Math.min(GBIT, window / (2 * alpha + baseRtt))
      expect(rate).toBeLessThan(GBIT) // window-bound, as the case means to test
      const t = simulateBroadcast(net, 'chain', range(p), n, n / k, 0).seconds
      const closed = (k + p - 2) * (alpha + n / k / rate)
      expect(Math.abs(t - closed) / closed).toBeLessThan(0.02)
    })
  }
  it('a window of at least bandwidth × RTT leaves the link the bound', () => {
    const p = 5
    const rtt = 2 * alpha + baseRtt
    const plain = buildClusterNetwork(cluster(1, p, GBIT, 10 * GBIT, alpha))
    const wide = buildClusterNetwork({
      ...cluster(1, p, GBIT, 10 * GBIT, alpha),
      tcpWindowBytes: Math.ceil(GBIT * rtt),
      baseRtt,
    })
    const a = simulateBroadcast(plain, 'chain', range(p), n, n / 100, 0).seconds
    const b = simulateBroadcast(wide, 'chain', range(p), n, n / 100, 0).seconds
    expect(b / a).toBeCloseTo(1, 3)
  })
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
    const rate = Math.min(GBIT, uplink / busiestUplink(shuffled, perRack))
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

describe("bucket: the scatter's order (the lab measured the difference)", () => {
  // p = 3 on one switch, blocks of m = n/3 bytes, T = mβ. The root's link carries 2(p − 1) = 4
  // blocks, so 4T is the least time; each rank starts its ring once it holds its own block.
  const n = 3e7
  const T = n / 3 / GBIT
  const net = buildClusterNetwork(cluster(1, 3))
  it('last rank first (the runtime and the schedule): 4T, no receive link shared', () => {
    // Block 2 to rank 2 in [0, T], block 1 to rank 1 in [T, 2T]; rank 1 then passes block 1 to
    // rank 2 while the root sends block 0 to rank 1, and block 0 follows: two ring steps of T.
    expect(simulateBroadcast(net, 'bucket', range(3), n, n / 30).seconds).toBeCloseTo(4 * T, 9)
  })
  it("rank order: 5T, rank 1's ring takes half of rank 2's link from the root", () => {
    // Block 1 to rank 1 in [0, T]; then root→2 (block 2) and 1→2 (block 1) share rank 2's link
    // until 3T; the root's ring sends blocks 0 and 2 to rank 1 in [3T, 5T], rank 1 forwards
    // block 0 in [4T, 5T]. Whole blocks as single transfers (no chunks) keep the form exact.
    const path = (a: number, b: number) => net.path(a, b)
    const t: SimTransfer[] = [
      { path: path(0, 1), bytes: n / 3 }, // 0: scatter block 1
      { path: path(0, 2), bytes: n / 3, afterSent: [0] }, // 1: scatter block 2, in turn
      { path: path(1, 2), bytes: n / 3, after: [0] }, // 2: ring step 1 from rank 1's own block
      { path: path(0, 1), bytes: n / 3, afterSent: [1] }, // 3: root's ring, block 0
      { path: path(0, 1), bytes: n / 3, afterSent: [3] }, // 4: root's ring, block 2
      { path: path(1, 2), bytes: n / 3, after: [3], afterSent: [2] }, // 5: rank 1 forwards block 0
    ]
    expect(simulateTransfers(net.links, t).makespan).toBeCloseTo(5 * T, 9)
  })
})

describe('random chains: the uplink bound (docs/lab.md)', () => {
  it('over every order of 2 racks × 3 hosts, the slowdown is the busiest uplink direction, at most hostsPerRack · node / uplink', () => {
    // Uplink = node rate, so the ceiling is 3: reached only when all 3 hosts of a rack hand off across.
    const perRack = 3
    const net = buildClusterNetwork(cluster(2, perRack, GBIT, GBIT))
    const bytes = 1e7
    const k = 200
    const ordered = simulateBroadcast(net, 'chain', range(6), bytes, bytes / k).seconds
    // Every order with root 0 first: 5! = 120, by brute force.
    const permutations = (xs: number[]): number[][] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((r) => [x, ...r]))
    let worst = 0
    for (const rest of permutations([1, 2, 3, 4, 5])) {
      const order = [0, ...rest]
      const bound = Math.max(1, busiestUplink(order, perRack)) // node / (uplink / c) with uplink = node
      const ratio = simulateBroadcast(net, 'chain', order, bytes, bytes / k).seconds / ordered
      // Pipeline fill (p − 2 chunk times of k) is the only other term: within 3 %.
      expect(Math.abs(ratio - bound) / bound).toBeLessThan(0.03)
      worst = Math.max(worst, ratio)
    }
    expect(worst).toBeLessThanOrEqual(perRack)
    expect(worst).toBeGreaterThan(0.97 * perRack)
  })
})
