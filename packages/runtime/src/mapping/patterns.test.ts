import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { broadcastSchedule } from '../collectives/schedules/broadcast-schedule.ts'
import {
  ringAllGatherSchedule,
  ringReduceScatterSchedule,
} from '../collectives/schedules/regroup-schedule.ts'
import { buildNpyHeader } from '../formats/npy/npy-header.ts'
import { commTotals, toDense } from './comm-matrix.ts'
import { messagesFileFor, readCommMatrixNpy, writeCommMatrixNpy } from './comm-matrix-npy.ts'
import {
  adiPattern,
  dnnPattern,
  kmeansPattern,
  luPattern,
  patternMatrix,
  processGrid,
  scheduleMatrix,
} from './patterns.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'codebook-mapping-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const symmetric = (n: number, volume: Float64Array) => {
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) if (volume[i * n + j] !== volume[j * n + i]) return false
  return true
}

describe('communication patterns', () => {
  it('K-means: the bytes of its broadcast, regroup and combine schedules, in closed form', () => {
    const p = 12
    const k = 100
    const d = 16
    const m = kmeansPattern(p, { k, d, broadcast: 'chain', aggregation: 'three-stage', chunkBytes: 1 << 20 })
    const partials = k * (d + 1) * 8 // every centroid's partial block, summed over the blocks
    const block0 = Math.floor(k / p) * (d + 1) * 8
    // chain: (p − 1) hops of k·d·4; all-to-all: each rank sends every other owner its block;
    // combine: every block but rank 0's to rank 0.
    expect(commTotals(m).bytes).toBe((p - 1) * k * d * 4 + (p - 1) * partials + (partials - block0))
    // Chain hops are rank r → r + 1 only, one message each (one chunk).
    expect(toDense(m).messages[3 * p + 4]).toBe(2) // broadcast hop + regroup block
  })

  it('any collective: an MST broadcast is one edge per receiver, from rank r − 2^⌊log₂ r⌋', () => {
    const ranks = [...Array(8).keys()]
    const m = scheduleMatrix(8, broadcastSchedule('mst', ranks, 1 << 20, 1 << 19))
    const { volume, messages } = toDense(m)
    for (let r = 1; r < 8; r++) {
      const parent = r - 2 ** Math.floor(Math.log2(r))
      expect(volume[parent * 8 + r]).toBe(1 << 20)
      expect(messages[parent * 8 + r]).toBe(2) // two 512 KiB chunks
    }
    expect(m.col.length).toBe(7)
  })

  it('K-means with ring aggregation is sparse: ring neighbours and the gather at rank 0', () => {
    const m = kmeansPattern(16, { aggregation: 'ring' })
    for (let i = 0; i < 16; i++)
      for (let k = m.rowStart[i]!; k < m.rowStart[i + 1]!; k++) expect([(i + 1) % 16, 0]).toContain(m.col[k])
    expect(() => kmeansPattern(2048, { aggregation: 'ring' })).toThrow(
      expect.objectContaining({ code: 'PATTERN_TOO_LARGE' }),
    )
  })

  it('BT and SP: six torus neighbours each, symmetric, SP with more and smaller messages', () => {
    expect(processGrid(64)).toEqual({ rows: 8, cols: 8 })
    expect(processGrid(24)).toEqual({ rows: 4, cols: 6 })
    const bt = adiPattern('bt', 64)
    const sp = adiPattern('sp', 64)
    for (let i = 0; i < 64; i++) expect(bt.rowStart[i + 1]! - bt.rowStart[i]!).toBe(6)
    expect(symmetric(64, toDense(bt).volume)).toBe(true)
    expect(commTotals(sp).messages).toBe(2 * commTotals(bt).messages)
    expect(commTotals(sp).bytes).toBe(commTotals(bt).bytes / 2)
  })

  it('LU: a non-periodic grid, 2–4 neighbours, (2G + 1) messages per neighbour', () => {
    const lu = luPattern(64, { grid: 102 })
    const degrees = Array.from({ length: 64 }, (_, i) => lu.rowStart[i + 1]! - lu.rowStart[i]!)
    expect(Math.min(...degrees)).toBe(2)
    expect(Math.max(...degrees)).toBe(4)
    // 8 × 8 grid: 2 · (8·7 + 8·7) directed neighbour pairs.
    expect(commTotals(lu).messages).toBe(224 * 205)
  })

  it('DNN: workers exchange a model shard with each of √N parameter servers, both ways', () => {
    const dnn = dnnPattern(64, { modelBytes: 8e6 })
    const { volume } = toDense(dnn)
    expect(volume[10 * 64 + 3]).toBe(1e6) // worker 10 → server 3: model / 8 servers
    expect(volume[3 * 64 + 10]).toBe(1e6)
    expect(volume[10 * 64 + 11]).toBe(0) // workers do not talk to each other
    expect(commTotals(dnn).bytes).toBe(2 * 56 * 8e6)
  })

  it('DNN with all-reduce: the matrix of the runtime’s ring all-reduce schedule, in closed form', () => {
    const n = 16
    const dnn = dnnPattern(n, { modelBytes: 8e6, exchange: 'allreduce' })
    // The second implementation: the runtime's own reduce-scatter + all-gather schedule.
    const ring = Array.from({ length: n }, (_, i) => i)
    const blocks = new Array<number>(n).fill(8e6 / n)
    const scheduled = toDense(
      scheduleMatrix(n, ringAllGatherSchedule(ring, blocks, ringReduceScatterSchedule(ring, blocks))),
    )
    const { volume, messages } = toDense(dnn)
    for (let x = 0; x < n * n; x++) {
      expect(volume[x]).toBeCloseTo(scheduled.volume[x]!, 3)
      expect(messages[x]).toBe(scheduled.messages[x])
    }
    expect(messages[3 * n + 4]).toBe(2 * (n - 1)) // 2(N − 1) blocks from each rank to the next
    expect(volume[(n - 1) * n]).toBeCloseTo((2 * (n - 1) * 8e6) / n, 3)
  })

  it('unknown patterns and too few processes are coded errors', () => {
    expect(() => patternMatrix('fft', 8)).toThrow(expect.objectContaining({ code: 'PATTERN_UNKNOWN' }))
    expect(() => patternMatrix('bt', 1)).toThrow(expect.objectContaining({ code: 'BAD_PROCESSES' }))
  })
})

describe('.npy import and export', () => {
  it('round-trips volume and message counts', async () => {
    const file = join(dir, 'lu.npy')
    const lu = luPattern(16)
    await writeCommMatrixNpy(file, lu)
    expect(toDense(await readCommMatrixNpy(file))).toEqual(toDense(lu))
  })

  it('reads a float64 volume matrix without a messages file as one message per non-zero entry', async () => {
    const file = join(dir, 'f8.npy')
    const header = buildNpyHeader('float32', 3, 3).toString('latin1').replace("'<f4'", "'<f8'")
    const data = Float64Array.from([0, 5e9, 0, 1, 0, 0, 0, 2.5, 0])
    await writeFile(file, Buffer.concat([Buffer.from(header, 'latin1'), Buffer.from(data.buffer)]))
    const m = await readCommMatrixNpy(file)
    expect(Array.from(toDense(m).volume)).toEqual([0, 5e9, 0, 1, 0, 0, 0, 2.5, 0])
    expect(Array.from(toDense(m).messages)).toEqual([0, 1, 0, 1, 0, 0, 0, 1, 0])
  })

  it('refuses a non-square or negative matrix with BAD_MATRIX', async () => {
    const file = join(dir, 'wide.npy')
    await writeFile(
      file,
      Buffer.concat([buildNpyHeader('float32', 2, 3), Buffer.from(new Float32Array(6).buffer)]),
    )
    await expect(readCommMatrixNpy(file)).rejects.toMatchObject({ code: 'BAD_MATRIX' })
    const neg = join(dir, 'neg.npy')
    await writeFile(
      neg,
      Buffer.concat([buildNpyHeader('float32', 2, 2), Buffer.from(Float32Array.from([0, -1, 0, 0]).buffer)]),
    )
    await expect(readCommMatrixNpy(neg)).rejects.toMatchObject({ code: 'BAD_MATRIX', row: 0 })
    expect(messagesFileFor('/x/a.npy')).toBe('/x/a.messages.npy')
  })
})
