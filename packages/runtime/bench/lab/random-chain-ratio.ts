/**
 * How much slower a random chain order is than the rack-ordered chain, by the simulator, over
 * many random orders (the lab's `chain-random`: root first, then a seeded shuffle; seeds 1…N).
 * Prints one JSON line per lab shape: the distribution of the predicted ratio (mean, quantiles,
 * share of orders at ≥ 2 × and ≥ 5 ×, how many orders put c hops on their busiest uplink direction) beside the uplink bound of docs/lab.md
 * ("Random chains: the uplink bound"): a pipelined chain runs at its slowest link's share, and
 * an uplink direction carrying c hops of the chain gives each uplink / c, so the ratio is
 * max(1, c_max · node / uplink) ≤ hostsPerRack · node / uplink.
 *
 * Usage (in packages/runtime):
 *   node --conditions=@codebook/source --import tsx bench/lab/random-chain-ratio.ts \
 *     [--shapes 3x4:100:200,3x42:100:1000] [--orders 200] [--bytes 16777216] [--chunk-bytes 65536]
 * A shape is RACKSxHOSTS:NODE_MBPS:UPLINK_MBPS.
 */
import { parseArgs } from 'node:util'
import { predictLabBroadcast } from '../../src/lab/bench-broadcast.ts'
import type { LabSpec } from '../../src/lab/lab-plan.ts'
import { createRng } from '../../src/random/rng.ts'
import { chainOrder } from '../../src/topology/chain-order.ts'

const { values } = parseArgs({
  options: {
    shapes: { type: 'string', default: '3x4:100:200' },
    orders: { type: 'string', default: '200' },
    bytes: { type: 'string', default: String(16 * 1024 * 1024) },
    'chunk-bytes': { type: 'string', default: '65536' },
  },
})
const orders = Number(values.orders)
const bytes = Number(values.bytes)
const chunkBytes = Number(values['chunk-bytes'])
if (!(orders >= 1 && bytes > 0 && chunkBytes > 0)) {
  process.stderr.write('random-chain-ratio: --orders, --bytes and --chunk-bytes must be positive numbers\n')
  process.exit(2)
}

/** Most hops of `order` on one uplink direction (out of a rack, or into one). */
function mostHopsOnOneUplink(order: readonly number[], rackOf: (host: number) => number): number {
  const up = new Map<number, number>()
  const down = new Map<number, number>()
  let most = 0
  for (let i = 1; i < order.length; i++) {
    const a = rackOf(order[i - 1]!)
    const b = rackOf(order[i]!)
    if (a === b) continue
    const u = (up.get(a) ?? 0) + 1
    const d = (down.get(b) ?? 0) + 1
    up.set(a, u)
    down.set(b, d)
    most = Math.max(most, u, d)
  }
  return most
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const round = (x: number) => Math.round(x * 1000) / 1000

for (const shape of values.shapes.split(',')) {
  const m = /^(\d+)x(\d+):(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(shape)
  if (!m) {
    process.stderr.write(
      `random-chain-ratio: bad shape "${shape}" (want RACKSxHOSTS:NODE_MBPS:UPLINK_MBPS)\n`,
    )
    process.exit(2)
  }
  const lab: LabSpec = {
    id: 0,
    racks: Number(m[1]),
    hostsPerRack: Number(m[2]),
    nodeMbps: Number(m[3]),
    uplinkMbps: Number(m[4]),
  }
  const hosts = lab.racks * lab.hostsPerRack
  const rackOf = (h: number) => Math.floor(h / lab.hostsPerRack)
  const racks = Array.from({ length: hosts }, (_, i) => `rack-${rackOf(i)}`)
  const ordered = predictLabBroadcast(lab, 'chain', hosts, bytes, chunkBytes, 1)
  const ratios: number[] = []
  const bounds: number[] = []
  // mostHops[c]: orders whose busiest uplink direction carries c hops.
  const mostHops: Record<number, number> = {}
  for (let seed = 1; seed <= orders; seed++) {
    ratios.push(predictLabBroadcast(lab, 'chain-random', hosts, bytes, chunkBytes, seed) / ordered)
    // The same order the bench and the workers draw (collectives/collective-app.ts).
    const order = chainOrder('random', racks, 0, createRng(seed))
    const c = mostHopsOnOneUplink(order, rackOf)
    mostHops[c] = (mostHops[c] ?? 0) + 1
    const orderedRate = Math.min(lab.nodeMbps, lab.uplinkMbps)
    bounds.push(orderedRate / Math.min(lab.nodeMbps, lab.uplinkMbps / Math.max(1, c)))
  }
  const sorted = [...ratios].sort((a, b) => a - b)
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length
  console.log(
    JSON.stringify({
      racks: lab.racks,
      hostsPerRack: lab.hostsPerRack,
      nodeMbps: lab.nodeMbps,
      uplinkMbps: lab.uplinkMbps,
      orders,
      orderedSeconds: round(ordered),
      meanRatio: round(mean(ratios)),
      p10: round(quantile(sorted, 0.1)),
      median: round(quantile(sorted, 0.5)),
      p90: round(quantile(sorted, 0.9)),
      maxRatio: round(sorted.at(-1)!),
      shareAtLeast2: round(ratios.filter((r) => r >= 2).length / orders),
      shareAtLeast5: round(ratios.filter((r) => r >= 5).length / orders),
      meanUplinkBound: round(mean(bounds)),
      mostHopsOnOneUplink: mostHops,
      ceiling: round(Math.max(1, (lab.hostsPerRack * lab.nodeMbps) / lab.uplinkMbps)),
      seeds1to8: ratios.slice(0, 8).map(round),
    }),
  )
}
