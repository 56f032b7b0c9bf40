/**
 * Init benchmark: wall time and inertia-after-init of each seeded init method on synthetic data
 * (the same `generateBlobs` data as the other benches). Prints one JSON object per method. Not a
 * test: timings vary with machine load (note `uptime` with the figures); `cpuMs` (this process's
 * user + system CPU) is steadier than the wall time on a shared machine.
 *
 *   npx tsx bench/kmeans/init-bench.ts --n 20000 --d 512 --k 512 --blobs 1000 --methods sequential,kmeans++,kmeans-parallel
 */
import { parseArgs } from 'node:util'
import { generateBlobs } from '../../src/kmeans/bench-data.ts'
import { computeInit, INIT_METHODS, type InitMethod } from '../../src/kmeans/init/compute-init.ts'
import { kmeansPlusPlus } from '../../src/kmeans/init/kmeans-plus-plus.ts'
import { createOrtKernel } from '../../src/kmeans/kernels/ort-kernel.ts'
import { createRng } from '../../src/random/rng.ts'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    d: { type: 'string', default: '512' },
    k: { type: 'string', default: '512' },
    blobs: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    methods: { type: 'string', default: INIT_METHODS.join(',') },
    threads: { type: 'string', default: '2' },
  },
})
const n = Number(values.n)
const d = Number(values.d)
const k = Number(values.k)
const { points } = generateBlobs({ n, d, blobs: Number(values.blobs), seed: Number(values.seed), spread: 3 })
const kernel = await createOrtKernel({ intraOpNumThreads: Number(values.threads) })
// `sequential` is the k-means++ every run used before issue 17 (one TypeScript pass per pick), for comparison.
for (const method of values.methods.split(',') as Array<InitMethod | 'sequential'>) {
  const cpu = process.cpuUsage()
  const started = performance.now()
  const seed = Number(values.seed)
  const centroids =
    method === 'sequential'
      ? kmeansPlusPlus(points, d, k, createRng(seed))
      : await computeInit(method, points, n, d, k, seed, kernel)
  const ms = performance.now() - started
  const { user, system } = process.cpuUsage(cpu)
  const { distancesSq } = await kernel.assign(points, centroids, d)
  let inertia = 0
  for (const v of distancesSq) inertia += v
  console.log(
    JSON.stringify({
      method,
      n,
      d,
      k,
      ms: Math.round(ms),
      cpuMs: Math.round((user + system) / 1000),
      inertia,
    }),
  )
}
await kernel.dispose()
