import { describe, expect, it } from 'vitest'
import type { ClusterSpec } from './cluster-network.ts'
import { predictOverlappedIteration } from './predict-kmeans-overlap.ts'

/** p nodes on one rack whose network is practically free (1 PB/s, no latency): only the CPU costs. */
function freeNetwork(p: number): ClusterSpec {
  return {
    nodes: Array.from({ length: p }, (_, i) => ({
      name: `n${i}`,
      rack: 0,
      nicBandwidth: 1e15,
      nicLatency: 0,
    })),
    racks: [{ name: 'r', site: 0, uplinkBandwidth: 1e15, uplinkLatency: 0 }],
  }
}

const model = (p: number) => ({
  n: 1000 * p,
  d: 10,
  k: 50,
  broadcast: 'chain' as const,
  order: Array.from({ length: p }, (_, i) => i),
  aggregation: 'ring' as const,
  chunkBytes: 4096,
  slots: new Array<number>(p).fill(1),
})
const flops = 1000 * 50 * 10 * 2 // one worker's map

describe('predictOverlappedIteration', () => {
  it('maps share the cores: p maps on c cores take max(1, p / c) times one map, each at most one core', () => {
    for (const [p, cores] of [
      [2, 1],
      [2, 2],
      [4, 2],
      [3, 4],
    ] as const) {
      const seconds = predictOverlappedIteration(freeNetwork(p), model(p), { cores, gflopsPerCore: 0.5 })
      expect(seconds, `${p} on ${cores}`).toBeCloseTo((flops / 0.5e9) * Math.max(1, p / cores), 9)
    }
  })

  it('refuses a CPU without cores or speed', () => {
    expect(() =>
      predictOverlappedIteration(freeNetwork(2), model(2), { cores: 0, gflopsPerCore: 1 }),
    ).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }))
  })
})
