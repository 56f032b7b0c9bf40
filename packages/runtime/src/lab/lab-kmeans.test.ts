import { afterAll, describe, expect, it } from 'vitest'
import { WorkerPool } from '../framework/worker-pool.ts'
import { benchData } from '../kmeans/bench-data.ts'
import { lloydReference } from '../kmeans/lloyd-reference.ts'
import { runKmeans } from '../kmeans/run-kmeans.ts'
import { labDown, labUnavailableReason, labUp } from './lab-net.ts'
import { spawnInLab } from './lab-workers.ts'

// Lab 7 belongs to this file (lab.test.ts uses 6): test files run in parallel.
const ID = 7
const reason = await labUnavailableReason()

describe.skipIf(reason !== null)(`K-means across lab hosts (${reason ?? 'root'})`, () => {
  afterAll(async () => {
    await labDown(ID)
  }, 30_000)

  it('a run whose workers sit in lab namespaces (2 racks × 2 hosts) equals the single-process reference', async () => {
    const [n, d, k] = [2000, 8, 12]
    const { points, init } = benchData(n, d, k, 6, 5)
    const reference = lloydReference(points, d, init, { maxIterations: 40, tol: 0, seed: 3 })
    const lab = await labUp({ id: ID, racks: 2, hostsPerRack: 2, nodeMbps: 400, uplinkMbps: 400 })
    const pool = await WorkerPool.start({
      workers: 4,
      spawn: spawnInLab(lab.hosts),
      racks: lab.hosts.map((h) => h.rack),
      host: lab.driverAddress,
      chunkBytes: 4096,
      registerTimeoutMs: 30_000,
    })
    try {
      for (const [broadcast, aggregation] of [
        ['chain', 'three-stage'],
        ['bucket', 'allreduce'],
      ] as const) {
        const reassigned: number[] = []
        let crossRack = 0
        const run = await runKmeans(pool, {
          data: { kind: 'inline', points, d },
          init,
          maxIterations: 40,
          tol: 0,
          slots: 2,
          broadcast,
          chainOrder: 'topology',
          aggregation,
          seed: 3,
          now: () => performance.now(),
          onIteration: (r) => {
            reassigned.push(r.reassigned)
            crossRack += r.stages.broadcast.crossRackBytes
          },
        })
        const label = `${broadcast}/${aggregation}`
        expect(run.iterations, label).toBe(reference.iterations)
        expect(reassigned, label).toEqual(reference.reassigned)
        let worst = 0
        for (let i = 0; i < run.centroids.length; i++)
          worst = Math.max(
            worst,
            Math.abs(run.centroids[i]! - reference.centroids[i]!) /
              Math.max(1, Math.abs(reference.centroids[i]!)),
          )
        expect(worst, label).toBeLessThanOrEqual(1e-4)
        // The centroids really crossed the lab's rack uplink.
        expect(crossRack, label).toBeGreaterThan(0)
      }
    } finally {
      await pool.close()
    }
  }, 120_000)
})

describe.skipIf(reason === null)('K-means across lab hosts skipped', () => {
  it.skip(`skipped: ${reason}`, () => {})
})
