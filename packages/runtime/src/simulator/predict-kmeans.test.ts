import type { Topology } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { generateTopology } from '../topology/generate.ts'
import { DEFAULT_MAP_GFLOPS_PER_SLOT, predictKmeansIteration } from './predict-kmeans.ts'

/** p nodes on one switch, 1 Gbit/s NICs, zero latency so times are pure bandwidth terms. */
function oneSwitch(p: number, slots = 1): Topology {
  const t = generateTopology({ racks: 1, nodesPerRack: p, nodeGbps: 1, uplinkGbps: 10, slots })
  for (const r of t.sites[0]!.racks) r.latencyUs = 0
  return t
}

const beta = 8 / 1e9 // seconds per byte on a 1 Gbit/s link
const p = 6
const k = 600
const d = 99
const block = (k / p) * (d + 1) * 8 // 80,000 bytes
const base = { n: 60_000, d, k, broadcast: 'chain', chunkBytes: 1 << 19 } as const

describe('predictKmeansIteration', () => {
  it('three-stage aggregation on one switch: the all-to-all takes (p − 1)·block·β, the gather the same', () => {
    const r = predictKmeansIteration(oneSwitch(p), { ...base, aggregation: 'three-stage' })
    expect(r.nodes).toBe(p)
    expect(r.stages.regroup.seconds).toBeCloseTo((p - 1) * block * beta, 9)
    expect(r.stages.regroup.bytes).toBe(p * (p - 1) * block)
    expect(r.stages.regroup.messages).toBe(p * (p - 1))
    expect(r.stages.regroup.crossRackBytes).toBe(0)
    // Node 0's receive link carries the p − 1 other blocks.
    expect(r.stages.combine.seconds).toBeCloseTo((p - 1) * block * beta, 9)
  })

  it('byte centroids: the broadcast moves k·d bytes and a header, and a centroids combine gathers (p − 1) encoded blocks', () => {
    const floats = predictKmeansIteration(oneSwitch(p), { ...base, aggregation: 'three-stage' })
    const bytes = predictKmeansIteration(oneSwitch(p), {
      ...base,
      aggregation: 'three-stage',
      encoding: 'uint8',
      combine: 'centroids',
    })
    // The chain carries the message once per hop: p − 1 copies. uint8 adds d float32 minima and scales.
    const header = 8 * d
    expect(floats.stages.broadcast.bytes).toBe((p - 1) * k * d * 4)
    expect(bytes.stages.broadcast.bytes).toBe((p - 1) * (k * d + header))
    // The regroup still moves float64 partial sums.
    expect(bytes.stages.regroup.bytes).toBe(floats.stages.regroup.bytes)
    const centroidBlock = (k / p) * d + header
    expect(bytes.stages.combine.bytes).toBe((p - 1) * centroidBlock)
    expect(bytes.stages.combine.seconds).toBeCloseTo((p - 1) * centroidBlock * beta, 9)
  })

  it('direct sends slots× the bytes; ring reduce-scatter costs (p − 1)·block·β, allreduce twice that', () => {
    const slots = 3
    const direct = predictKmeansIteration(oneSwitch(p, slots), { ...base, aggregation: 'direct' })
    expect(direct.stages.regroup.seconds).toBeCloseTo(slots * (p - 1) * block * beta, 9)
    const three = predictKmeansIteration(oneSwitch(p), { ...base, aggregation: 'ring' })
    expect(three.stages.regroup.seconds).toBeCloseTo((p - 1) * block * beta, 9)
    expect(three.stages.combine.seconds).toBeCloseTo((p - 1) * block * beta, 9)
    const ar = predictKmeansIteration(oneSwitch(p), { ...base, aggregation: 'allreduce' })
    expect(ar.stages.regroup.seconds).toBeCloseTo(2 * (p - 1) * block * beta, 9)
    expect(ar.stages.combine.seconds).toBe(0)
  })

  it('map is (n/p)·k·d·2 flops over slots × GF/s; broadcast is the chain of k·d·4 bytes', () => {
    const gflops = 7
    const r = predictKmeansIteration(oneSwitch(p, 4), {
      ...base,
      aggregation: 'three-stage',
      mapGflopsPerSlot: gflops,
      slots: 2,
    })
    expect(r.slots).toEqual([2, 2, 2, 2, 2, 2])
    expect(r.stages.map.seconds).toBeCloseTo(((base.n / p) * k * d * 2) / (2 * gflops * 1e9), 12)
    const def = predictKmeansIteration(oneSwitch(p, 4), { ...base, aggregation: 'three-stage' })
    expect(def.stages.map.seconds).toBeCloseTo(
      ((base.n / p) * k * d * 2) / (4 * DEFAULT_MAP_GFLOPS_PER_SLOT * 1e9),
      12,
    )
    // One chunk (k·d·4 = 237,600 bytes < 512 KiB) down a chain of p − 1 hops.
    expect(r.stages.broadcast.seconds).toBeCloseTo((p - 1) * k * d * 4 * beta, 9)
    expect(r.seconds).toBeCloseTo(
      r.stages.broadcast.seconds + r.stages.map.seconds + r.stages.regroup.seconds + r.stages.combine.seconds,
      12,
    )
  })

  it('across racks, thin uplinks slow the all-to-all and carry the cross-rack blocks', () => {
    const t = generateTopology({ racks: 2, nodesPerRack: 3, nodeGbps: 1, uplinkGbps: 1 })
    for (const r of t.sites[0]!.racks) r.latencyUs = 0
    const r = predictKmeansIteration(t, { ...base, aggregation: 'three-stage' })
    // 3 × 3 blocks cross each way; one uplink carries 9 blocks: 9·block·β > 5·block·β (NIC bound).
    expect(r.stages.regroup.crossRackBytes).toBe(2 * 9 * block)
    expect(r.stages.regroup.seconds).toBeCloseTo(9 * block * beta, 9)
  })

  it('handles fewer centroids than nodes (empty blocks) in every mode', () => {
    for (const aggregation of ['three-stage', 'direct', 'ring', 'allreduce'] as const) {
      const r = predictKmeansIteration(oneSwitch(p), { ...base, k: 3, aggregation })
      // 3 non-empty blocks of (d + 1)·8 bytes: every mode moves at least one block, finitely fast.
      expect(r.stages.regroup.seconds, aggregation).toBeGreaterThanOrEqual((d + 1) * 8 * beta * (1 - 1e-9))
      expect(Number.isFinite(r.seconds)).toBe(true)
    }
  })

  it('rejects bad sizes and too many nodes with coded errors', () => {
    expect(() => predictKmeansIteration(oneSwitch(2), { ...base, k: 0, aggregation: 'three-stage' })).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION' }),
    )
    expect(() =>
      predictKmeansIteration(oneSwitch(2), { ...base, nodes: 3, aggregation: 'three-stage' }),
    ).toThrow(expect.objectContaining({ code: 'SIM_TOO_MANY_NODES' }))
  })
})
