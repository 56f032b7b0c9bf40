import type { SimulatedBroadcastRow, SimulateKmeansResult } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { detectTopologyFormat, exportFileName, nameFromFile } from './import-format.ts'
import { broadcastSeries, formatSeconds, kmeansSeries, nodeCounts, whatIfErrorHint } from './what-if.ts'

describe('nodeCounts', () => {
  it('spaces counts evenly up to the total, without duplicates', () => {
    expect(nodeCounts(150)).toEqual([25, 50, 75, 100, 125, 150])
    expect(nodeCounts(4)).toEqual([2, 3, 4])
    expect(nodeCounts(8)).toEqual([2, 3, 4, 5, 7, 8])
    expect(nodeCounts(1)).toEqual([1])
    expect(nodeCounts(0)).toEqual([])
    for (let total = 1; total < 60; total++) {
      const c = nodeCounts(total)
      expect(c.at(-1)).toBe(total)
      expect(c.every((v, i) => i === 0 || v > c[i - 1]!)).toBe(true)
    }
  })
})

describe('broadcastSeries', () => {
  it('pivots rows to one series per algorithm, with null for missing cells', () => {
    const row = (algorithm: SimulatedBroadcastRow['algorithm'], nodes: number, seconds: number) => ({
      algorithm,
      nodes,
      bytes: 1e9,
      seconds,
      crossRackBytes: 0,
    })
    const out = broadcastSeries([row('simple', 50, 8), row('chain', 50, 1), row('simple', 25, 4)])
    expect(out).toEqual({
      nodes: [25, 50],
      series: [
        { algorithm: 'simple', seconds: [4, 8] },
        { algorithm: 'chain', seconds: [null, 1] },
      ],
    })
  })
})

describe('kmeansSeries', () => {
  it('stacks stages in run order, one value per prediction', () => {
    const stage = (seconds: number) => ({ seconds, bytes: 0, crossRackBytes: 0, messages: 0 })
    const result = (b: number) =>
      ({
        stages: { broadcast: stage(b), map: stage(2), regroup: stage(3), combine: stage(4) },
      }) as SimulateKmeansResult
    expect(kmeansSeries([result(1), result(10)])).toEqual([
      { stage: 'broadcast', seconds: [1, 10] },
      { stage: 'map', seconds: [2, 2] },
      { stage: 'regroup', seconds: [3, 3] },
      { stage: 'combine', seconds: [4, 4] },
    ])
  })
})

describe('formats', () => {
  it('detects the import format from the name and content', () => {
    expect(detectTopologyFormat('t.json', '')).toBe('json')
    expect(detectTopologyFormat('x.txt', '  {"version":1}')).toBe('json')
    expect(detectTopologyFormat('topology.conf', '# c\nSwitchName=s1 Nodes=tux[0-3]\n')).toBe('slurm')
    expect(detectTopologyFormat('racks.txt', 'h1 /dc1/rack1\n')).toBe('hadoop')
  })

  it('names imports and exports', () => {
    expect(nameFromFile('/tmp/my cluster.conf')).toBe('my cluster')
    expect(nameFromFile('.conf')).toBe('topology')
    expect(exportFileName('my cluster', 'slurm')).toBe('my-cluster-topology.conf')
    expect(exportFileName('a/b', 'json')).toBe('a-b.json')
    expect(exportFileName('', 'hadoop')).toBe('topology-racks.txt')
  })

  it('formats seconds with units', () => {
    expect(formatSeconds(8.3)).toBe('8.30 s')
    expect(formatSeconds(0.0123)).toBe('12.3 ms')
    expect(formatSeconds(2e-5)).toBe('20.0 µs')
  })
})

describe('whatIfErrorHint', () => {
  it('names the form’s controls, not the request fields', () => {
    const tooLarge = {
      code: 'SIM_TOO_LARGE',
      message: '… use fewer nodes, fewer bytes or a larger chunkBytes',
    }
    expect(whatIfErrorHint(tooLarge, 'broadcast')).toMatch(/larger Chunk .* smaller Size/)
    expect(whatIfErrorHint(tooLarge, 'broadcast')).not.toContain('chunkBytes')
    expect(whatIfErrorHint(tooLarge, 'kmeans')).toMatch(/smaller k or d/)
    const allToAll = {
      code: 'SIM_TOO_LARGE',
      message: 'the three-stage regroup over 150 nodes is an all-to-all …',
    }
    expect(whatIfErrorHint(allToAll, 'kmeans')).toMatch(/Aggregation ring or allreduce/)
    expect(whatIfErrorHint({ code: 'NETWORK_ERROR', message: 'x' }, 'broadcast')).toBeNull()
  })
})
