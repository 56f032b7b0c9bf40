/**
 * Where approximate assignment's time goes: for seeded blobs and random-row centroids (an
 * iteration-1 shape), builds usearch's HNSW index over the centroids, searches every point, and
 * checks a sample against the exact nearest (ORT kernel), for each tuning given. A development
 * tool for choosing the defaults of `accel/approximate.ts`; the benchmark of record is `codebook bench kmeans`.
 *
 *   npx tsx bench/kmeans/hnsw-profile.ts --n 200000 --d 128 --k 100000 --blobs 2000 \
 *     --tunings '16/128/64/f32,16/64/32/f32,8/32/16/f16'
 * Each tuning is connectivity/expansionAdd/expansionSearch/scalar (f32 | f16 | i8).
 */
import { parseArgs } from 'node:util'
import { buildCentroidIndex, type HnswScalar } from '../../src/kmeans/accel/approximate.ts'
import { generateBlobs } from '../../src/kmeans/bench-data.ts'
import { createOrtKernel } from '../../src/kmeans/kernels/ort-kernel.ts'
import { rowDistanceSq } from '../../src/kmeans/kernels/reference-kernel.ts'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '200000' },
    d: { type: 'string', default: '128' },
    k: { type: 'string', default: '20000' },
    blobs: { type: 'string', default: '2000' },
    sample: { type: 'string', default: '2000' },
    threads: { type: 'string', default: '2' },
    tunings: { type: 'string', default: '16/128/64/f32' },
  },
})
const n = Number(values.n)
const d = Number(values.d)
const k = Number(values.k)
const threads = Number(values.threads)
const { points } = generateBlobs({ n, d, blobs: Number(values.blobs), seed: 1, spread: 3, sigma: 1 })
// Centroids: evenly spaced rows (what a random-row init looks like to the index).
const centroids = new Float32Array(k * d)
for (let c = 0; c < k; c++) {
  const r = Math.floor((c * n) / k)
  centroids.set(points.subarray(r * d, (r + 1) * d), c * d)
}
const m = Math.min(n, Number(values.sample))
const sampleRows = Int32Array.from({ length: m }, (_, i) => Math.floor((i * n) / m))
const sample = new Float32Array(m * d)
for (let s = 0; s < m; s++) sample.set(points.subarray(sampleRows[s]! * d, (sampleRows[s]! + 1) * d), s * d)
const ort = await createOrtKernel({ intraOpNumThreads: threads })
await ort.prepare(d, k, ['assign'])
let t = performance.now()
const truth = (await ort.assign(sample, centroids, d)).labels
const exactSampleMs = performance.now() - t
console.log(JSON.stringify({ n, d, k, threads, exactSampleMs: Math.round(exactSampleMs), sample: m }))

for (const tuning of (values.tunings as string).split(',')) {
  const [conn, efAdd, efSearch, scalar] = tuning.split('/')
  const index = buildCentroidIndex(centroids, k, d, {
    connectivity: Number(conn),
    expansionAdd: Number(efAdd),
    expansionSearch: Number(efSearch),
    scalar: (scalar ?? 'f32') as HnswScalar,
    threads,
  })
  const buildMs = index.buildMs
  t = performance.now()
  const found = index.nearest(points, n)
  const searchMs = performance.now() - t
  let matched = 0
  for (let s = 0; s < m; s++) {
    const i = sampleRows[s]!
    const approx = rowDistanceSq(points, i, centroids, found[i]!, d)
    if (approx <= rowDistanceSq(sample, s, centroids, truth[s]!, d)) matched++
  }
  console.log(
    JSON.stringify({
      tuning,
      buildMs: Math.round(buildMs),
      searchMs: Math.round(searchMs),
      recall: matched / m,
      rssMB: Math.round(process.memoryUsage().rss / 2 ** 20),
    }),
  )
}
await ort.dispose()
