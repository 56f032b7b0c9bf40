/**
 * CPU and wall time of each ORT graph variant on one block (development aid):
 *   npx tsx bench/kmeans/variant-bench.ts --m 16384 --d 128 --k 1000 --groups 100
 */
import { parseArgs } from 'node:util'
import { createOrtKernel } from '../../src/kmeans/kernels/ort-kernel.ts'

const { values } = parseArgs({
  options: {
    m: { type: 'string', default: '16384' },
    d: { type: 'string', default: '128' },
    k: { type: 'string', default: '1000' },
    groups: { type: 'string', default: '100' },
    threads: { type: 'string', default: '2' },
  },
})
const [m, d, k, t] = [values.m, values.d, values.k, values.groups].map(Number)
const x = Float32Array.from({ length: m * d }, () => Math.random())
const c = Float32Array.from({ length: k * d }, () => Math.random())
const norms = new Float32Array(k)
for (let j = 0; j < k; j++) for (let e = 0; e < d; e++) norms[j] += c[j * d + e] ** 2
const kernel = await createOrtKernel({ intraOpNumThreads: Number(values.threads) })
const runs: Record<string, () => Promise<unknown>> = {
  assign: () => kernel.assign(x, c, d),
  distances: () => kernel.distances(x, c, d),
  nearestTwo: () => kernel.nearestTwo(x, c, d),
  groupMinima: () => kernel.groupMinima(x, c, norms, t, d),
}
for (let rep = 0; rep < 3; rep++) {
  for (const [name, run] of Object.entries(runs)) {
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    await run()
    const cpu = process.cpuUsage(cpu0)
    console.log(
      name.padEnd(16),
      'wall',
      (performance.now() - t0).toFixed(0),
      'cpu',
      ((cpu.user + cpu.system) / 1000).toFixed(0),
    )
  }
}
await kernel.dispose()
