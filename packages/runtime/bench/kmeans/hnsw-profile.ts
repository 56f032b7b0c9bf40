/**
 * Where approximate assignment's time goes: for seeded blobs and random-row centroids (an
 * iteration-1 shape), builds usearch's HNSW index over the centroids, searches every point, and
 * checks a sample against the exact nearest (ORT kernel), for each tuning given. A development
 * tool for choosing the defaults of `accel/approximate.ts`; the benchmark of record is `codebook bench kmeans`.
 *
 *   npx tsx bench/kmeans/hnsw-profile.ts --n 200000 --d 128 --k 100000 --blobs 2000 \
 *     --tunings '16/128/64/f32,16/64/32/f32,8/32/16/f16'
 * Each tuning is connectivity/expansionAdd/expansionSearch/scalar (f32 | f16 | i8).
 * With `--data points.npy --centroids c.npy` (e.g. a run's `--out`) it measures those instead, and
 * `gap` is the sample's inertia under the index's labels over its inertia under the exact ones, − 1.
 */
import { parseArgs } from 'node:util'
import { openNpy } from '../../src/formats/index.ts'
import {
  buildCentroidIndex,
  type HnswScalar,
  recallFigures,
  scoreRecall,
} from '../../src/kmeans/accel/approximate.ts'
import { generateBlobs } from '../../src/kmeans/bench-data.ts'
import { createOrtKernel } from '../../src/kmeans/kernels/ort-kernel.ts'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '200000' },
    d: { type: 'string', default: '128' },
    k: { type: 'string', default: '20000' },
    blobs: { type: 'string', default: '2000' },
    sample: { type: 'string', default: '2000' },
    threads: { type: 'string', default: '2' },
    tunings: { type: 'string', default: '16/128/64/f32' },
    data: { type: 'string' },
    centroids: { type: 'string' },
  },
})
async function load(file: string): Promise<{ x: Float32Array; rows: number; d: number }> {
  const f = await openNpy(file)
  const x = (await f.readRows(0, f.n)) as Float32Array
  await f.close()
  return { x: x instanceof Float32Array ? x : Float32Array.from(x), rows: f.n, d: f.d }
}
const given = values.data && values.centroids ? [await load(values.data), await load(values.centroids)] : null
const n = given ? given[0]!.rows : Number(values.n)
const d = given ? given[0]!.d : Number(values.d)
const k = given ? given[1]!.rows : Number(values.k)
const threads = Number(values.threads)
const points = given
  ? given[0]!.x
  : generateBlobs({ n, d, blobs: Number(values.blobs), seed: 1, spread: 3, sigma: 1 }).points
// Centroids: given, or evenly spaced rows (what a random-row init looks like to the index).
const centroids = given ? given[1]!.x : new Float32Array(k * d)
if (!given)
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
  const { recall, inertiaGap } = recallFigures(scoreRecall(points, sampleRows, found, truth, centroids, d))
  console.log(
    JSON.stringify({
      tuning,
      buildMs: Math.round(buildMs),
      searchMs: Math.round(searchMs),
      recall,
      gap: inertiaGap,
      rssMB: Math.round(process.memoryUsage().rss / 2 ** 20),
    }),
  )
}
await ort.dispose()
