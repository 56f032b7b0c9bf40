import { describe, expect, it } from 'vitest'
import { buildClusterNetwork } from './cluster-network.ts'
import { LAB_PAYLOAD_EFFICIENCY } from './lab-cluster.ts'
import { placedLabClusterSpec } from './lab-sites-cluster.ts'
import { playSchedule } from './play-schedule.ts'

/** Two sites × two hosts, asymmetric site paths (rates and delays), a delay within each site. */
const lab = {
  hostsPerRack: 2,
  nodeMbps: 200,
  uplinkMbps: 400,
  sites: {
    latencyMs: [
      [0.25, 50],
      [80, 0.5],
    ],
    mbps: [
      [0, 20],
      [10, 0],
    ],
  },
}
const payload = (mbps: number) => ((mbps * 1e6) / 8) * LAB_PAYLOAD_EFFICIENCY
const bytes = 300_000

/** One send of `bytes` from rank 0 to rank 1 placed on hosts `nodeOf`, played alone. */
const oneSend = (nodeOf: number[]) =>
  playSchedule(buildClusterNetwork(placedLabClusterSpec(lab, nodeOf)), [
    { from: 0, to: 1, bytes, after: [], piece: 0 },
  ]).seconds

describe('placedLabClusterSpec', () => {
  it('a send costs its site pair’s one-way delay plus bytes at the slower of its node and site-pair rate', () => {
    // Hosts 0, 1 are site 0; hosts 2, 3 site 1.
    expect(oneSend([0, 1])).toBeCloseTo(0.25e-3 + bytes / payload(200), 12)
    expect(oneSend([3, 2])).toBeCloseTo(0.5e-3 + bytes / payload(200), 12)
    expect(oneSend([1, 2])).toBeCloseTo(50e-3 + bytes / payload(20), 12)
    expect(oneSend([2, 0])).toBeCloseTo(80e-3 + bytes / payload(10), 12)
  })

  it('two ranks on one host pair share the site path max-min fairly; the reverse direction is separate', () => {
    const network = buildClusterNetwork(placedLabClusterSpec(lab, [0, 2, 1, 3]))
    // Ranks 0 → 1 and 2 → 3 both cross site 0 → site 1 (20 Mbit/s shared); 1 → 0 crosses back alone.
    const shared = playSchedule(network, [
      { from: 0, to: 1, bytes, after: [], piece: 0 },
      { from: 2, to: 3, bytes, after: [], piece: 1 },
    ])
    expect(shared.seconds).toBeCloseTo(50e-3 + (2 * bytes) / payload(20), 12)
    const both = playSchedule(network, [
      { from: 0, to: 1, bytes, after: [], piece: 0 },
      { from: 1, to: 0, bytes, after: [], piece: 1 },
    ])
    expect(both.seconds).toBeCloseTo(Math.max(50e-3 + bytes / payload(20), 80e-3 + bytes / payload(10)), 12)
  })

  it('refuses a missing or negative path latency', () => {
    const spec = placedLabClusterSpec(lab, [0, 2])
    expect(() =>
      buildClusterNetwork({
        ...spec,
        pathLatency: [
          [0, 0.05],
          [-1, 0],
        ],
      }),
    ).toThrow(expect.objectContaining({ code: 'SIM_BAD_LATENCY' }))
    expect(() => buildClusterNetwork({ ...spec, pathLatency: [[0, 0.05]] })).toThrow(
      expect.objectContaining({ code: 'SIM_BAD_LATENCY' }),
    )
  })
})
