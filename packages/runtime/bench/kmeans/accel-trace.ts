/**
 * Traces an accelerated assignment state in one process on .npy data and init: per iteration the
 * assignment ms, update ms, distance fraction, changed labels and inertia (Lloyd update from the
 * cluster sums a map task keeps). A development tool for tuning the bounds; the benchmark of record is `codebook bench kmeans`.
 *
 *   npx tsx bench/kmeans/accel-trace.ts --data points.npy --init init.npy --algorithm yinyang --iterations 12
 */
import { parseArgs } from 'node:util'
import { openNpy } from '../../src/formats/index.ts'
import type { AccelState } from '../../src/kmeans/accel/accel-state.ts'
import { createHamerlyState } from '../../src/kmeans/accel/hamerly.ts'
import { createYinyangState } from '../../src/kmeans/accel/yinyang.ts'
import { createClusterSums } from '../../src/kmeans/cluster-sums.ts'
import { createOrtKernel } from '../../src/kmeans/kernels/ort-kernel.ts'

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    init: { type: 'string' },
    algorithm: { type: 'string', default: 'yinyang' },
    iterations: { type: 'string', default: '12' },
    threads: { type: 'string', default: '2' },
    options: { type: 'string', default: '{}' },
  },
})
async function load(file: string): Promise<{ x: Float32Array; rows: number; d: number }> {
  const f = await openNpy(file)
  const x = (await f.readRows(0, f.n)) as Float32Array
  const out = { x, rows: f.n, d: f.d }
  await f.close()
  return out
}
const { x: points, rows: n, d } = await load(values.data as string)
const { x: init, rows: k } = await load(values.init as string)
const dense = await createOrtKernel({ intraOpNumThreads: Number(values.threads) })
const extra = JSON.parse(values.options as string)
let state: AccelState | null = null
if (values.algorithm === 'hamerly') state = createHamerlyState(points, n, d, { dense, ...extra })
else if (values.algorithm === 'yinyang') state = createYinyangState(points, n, d, { dense, ...extra })
await dense.prepare(d, k, state ? state.kernelPasses : ['assign'])
let centroids = init.slice()
const clusterSums = createClusterSums(points, d)
let total = 0
let totalCpu = 0
for (let it = 1; it <= Number(values.iterations); it++) {
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const a = state
    ? await state.assign(centroids, k)
    : { ...(await dense.assign(points, centroids, d)), distancesEvaluated: n * k, changed: -1 }
  const t1 = performance.now()
  const cpu1 = process.cpuUsage(cpu0)
  clusterSums.update(a.labels, k)
  const inertia = clusterSums.inertia(centroids)
  const { sums, counts } = clusterSums.partials
  const next = centroids.slice()
  for (let j = 0; j < k; j++)
    if (counts[j] > 0) for (let t = 0; t < d; t++) next[j * d + t] = sums[j * d + t] / counts[j]
  centroids = next
  const t2 = performance.now()
  total += t2 - t0
  totalCpu += (cpu1.user + cpu1.system) / 1000
  console.log(
    JSON.stringify({
      it,
      assignMs: Math.round(t1 - t0),
      assignCpuMs: Math.round((cpu1.user + cpu1.system) / 1000),
      updateMs: Math.round(t2 - t1),
      fraction: +(a.distancesEvaluated / (n * k)).toFixed(4),
      changed: a.changed,
      inertia,
    }),
  )
}
console.log(JSON.stringify({ totalMs: Math.round(total), assignCpuMs: Math.round(totalCpu) }))
await dense.dispose()
