import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../cli/main.ts'
import { writeNpy } from '../formats/index.ts'
import { spawnLocalWorker } from '../framework/spawn.ts'
import { WorkerPool } from '../framework/worker-pool.ts'
import { createRng } from '../random/rng.ts'
import { runColumnStats } from './run-column-stats.ts'

// The framework's second application on 3 real worker processes, checked against a two-pass
// float64 computation in this process; and the protocol's refusals of malformed messages.
const n = 1001
const d = 7
const x = new Float32Array(n * d)
let dir: string
let file: string
let pool: WorkerPool

/** Two-pass mean and population variance per column: the independent reference. */
function reference(): { mean: number[]; variance: number[] } {
  const mean = Array.from({ length: d }, (_, t) => {
    let s = 0
    for (let i = 0; i < n; i++) s += x[i * d + t]!
    return s / n
  })
  const variance = mean.map((m, t) => {
    let s = 0
    for (let i = 0; i < n; i++) s += (x[i * d + t]! - m) ** 2
    return s / n
  })
  return { mean, variance }
}

beforeAll(async () => {
  const rng = createRng(3)
  // Large offsets and small spreads: a one-pass Σx² − n·mean² would lose the variance entirely.
  for (let i = 0; i < n; i++)
    for (let t = 0; t < d; t++) x[i * d + t] = 1000 * (t + 1) + rng.normal() * (t + 1) * 0.01
  dir = await mkdtemp(join(tmpdir(), 'codebook-column-stats-'))
  file = join(dir, 'x.npy')
  await writeNpy(file, x, n, d)
  pool = await WorkerPool.start({ workers: 3, spawn: spawnLocalWorker })
})
afterAll(async () => {
  await pool?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('the column-stats application', () => {
  it('computes every column’s mean and variance on 3 workers as a two-pass reference does', async () => {
    const s = await runColumnStats(pool, file)
    const ref = reference()
    expect(s.n).toBe(n)
    for (let t = 0; t < d; t++) {
      expect(s.mean[t]).toBeCloseTo(ref.mean[t]!, 9)
      expect(Math.abs(s.variance[t]! - ref.variance[t]!) / ref.variance[t]!).toBeLessThan(1e-6)
    }
  })

  it('runs from its CLI command on 3 worker processes', async () => {
    const out: string[] = []
    const write = process.stdout.write.bind(process.stdout)
    process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write
    try {
      expect(await main(['column-stats', '--data', file, '--workers', '3', '--json'])).toBe(0)
    } finally {
      process.stdout.write = write
    }
    const printed = JSON.parse(out.join('')) as { n: number; d: number; mean: number[]; std: number[] }
    const ref = reference()
    expect(printed).toMatchObject({ n, d })
    for (let t = 0; t < d; t++) {
      expect(printed.mean[t]).toBeCloseTo(ref.mean[t]!, 9)
      expect(printed.std[t]).toBeCloseTo(Math.sqrt(ref.variance[t]!), 7)
    }
  })
})

describe('the control protocol', () => {
  it('refuses a malformed application message at the driver, before it is sent', async () => {
    const { columnStatsApplication } = await import('./column-stats-app.ts')
    await expect(
      pool.call(0, columnStatsApplication, { type: 'load', file: 7 } as never),
    ).rejects.toMatchObject({ code: 'CONTROL_BAD_MESSAGE', message: expect.stringContaining('file') })
  })

  it('refuses malformed and unknown messages at the worker with coded errors, and keeps serving', async () => {
    await expect(
      pool.request(1, { type: 'app', app: 'column-stats', message: { type: 'moments', ranks: [] } }),
    ).rejects.toMatchObject({ code: 'CONTROL_BAD_MESSAGE' })
    await expect(pool.request(1, { type: 'app', app: 'no-such-app', message: {} })).rejects.toMatchObject({
      code: 'APP_UNKNOWN',
      message: expect.stringContaining('kmeans, column-stats'),
    })
    await expect(pool.request(1, { type: 'chunk-bytes', chunkBytes: -1 })).rejects.toMatchObject({
      code: 'CONTROL_BAD_MESSAGE',
      message: expect.stringContaining('chunkBytes'),
    })
    await expect(pool.request(1, { type: 'teleport' } as never)).rejects.toMatchObject({
      code: 'CONTROL_BAD_MESSAGE',
    })
    expect((await runColumnStats(pool, file)).n).toBe(n)
  })
})
