/**
 * One full assignment pass on uint8 data: the exact int8 kernel against the float32 ORT kernel
 * (`createOrtKernel`), same points, same centroids, same run. Prints one JSON object: each pass's
 * ms, the ratio, the int8 pass's statistics (how many labels the bound proved alone) and how the
 * labels compare (float32 labels may differ at near ties; each difference is checked against the
 * exact float64 distances). Not a test: note `cat /proc/loadavg` with the figures.
 *
 *   npx tsx bench/kmeans/int8-bench.ts --n 200000 --d 512 --k 20000 --blobs 2000
 *   npx tsx bench/kmeans/int8-bench.ts --n 50000 --d 512 --k 5000 --blobs 500    (quick: ~1/16 of the work)
 *
 * Data: HOG-like bytes, `blobs` centres with |N(0, 1)|·70 per dimension (skewed, non-negative),
 * points round(centre + σ·N(0, 1)) clipped to [0, 255] (σ = --sigma, default 12); centroids are k
 * distinct random rows (seed + 1), as a random-sample init.
 */
import { parseArgs } from 'node:util'
import { generateByteBlobs } from '../../src/kmeans/byte-blobs.ts'
import { createInt8Kernel } from '../../src/kmeans/kernels/int8-kernel.ts'
import { createOrtKernel } from '../../src/kmeans/kernels/ort-kernel.ts'
import { rowDistanceSq } from '../../src/kmeans/kernels/reference-kernel.ts'
import { createRng } from '../../src/random/rng.ts'

/** Seeded HOG-like uint8 points (n × d) and k distinct rows of them as float32 centroids. */
function hogLikeData(n: number, d: number, k: number, blobs: number, sigma: number, seed: number) {
  const points = generateByteBlobs({ n, d, blobs, seed, sigma })
  // k distinct rows: a partial Fisher–Yates shuffle of the row indices.
  const pick = createRng(seed + 1)
  const order = Int32Array.from({ length: n }, (_, i) => i)
  const centroids = new Float32Array(k * d)
  for (let j = 0; j < k; j++) {
    const r = j + pick.int(n - j)
    const row = order[r]
    order[r] = order[j]
    order[j] = row
    for (let t = 0; t < d; t++) centroids[j * d + t] = points[row * d + t]
  }
  return { points, centroids }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      n: { type: 'string', default: '200000' },
      d: { type: 'string', default: '512' },
      k: { type: 'string', default: '20000' },
      blobs: { type: 'string', default: '2000' },
      sigma: { type: 'string', default: '12' },
      seed: { type: 'string', default: '1' },
      threads: { type: 'string' },
      levels: { type: 'string' },
      order: { type: 'string', default: 'float32,int8' },
    },
  })
  const n = Number(values.n)
  const d = Number(values.d)
  const k = Number(values.k)
  const threads = values.threads === undefined ? {} : { intraOpNumThreads: Number(values.threads) }
  const generated = performance.now()
  const { points, centroids } = hogLikeData(
    n,
    d,
    k,
    Number(values.blobs),
    Number(values.sigma),
    Number(values.seed),
  )
  // The float32 kernel's input: the same bytes widened (4 × the memory; what workers hold today).
  const pointsF32 = Float32Array.from(points)
  const report: Record<string, unknown> = {
    n,
    d,
    k,
    blobs: Number(values.blobs),
    sigma: Number(values.sigma),
    seed: Number(values.seed),
    generateMs: Math.round(performance.now() - generated),
  }
  const ort = await createOrtKernel(threads)
  const int8 = await createInt8Kernel({
    ...threads,
    ...(values.levels === undefined ? {} : { levels: Number(values.levels) as 63 | 127 }),
  })
  report.intraOpNumThreads = ort.intraOpNumThreads
  report.levels = int8.levels
  // The float32 session and its first-run buffers are a one-off cost, kept out of the pass (as
  // `prepare` at load). The int8 pass builds its session per call, inside its time.
  await ort.prepare(d, k, ['assign'])
  await int8.assignBytes(points.subarray(0, 64 * d), centroids.subarray(0, Math.min(k, 64) * d), d)

  const results: Record<string, { labels: Int32Array; ms: number }> = {}
  for (const name of values.order.split(',')) {
    const t0 = performance.now()
    const { labels } =
      name === 'int8'
        ? await int8.assignBytes(points, centroids, d)
        : await ort.assign(pointsF32, centroids, d)
    results[name] = { labels, ms: performance.now() - t0 }
  }
  const f = results.float32
  const i8 = results.int8
  report.float32Ms = Math.round(f.ms)
  report.int8Ms = Math.round(i8.ms)
  report.speedup = Number((f.ms / i8.ms).toFixed(2))
  const stats = int8.lastPass
  if (stats)
    report.int8Pass = {
      certainFraction: Number((stats.certain / n).toFixed(4)),
      settledFraction: Number((stats.settled / n).toFixed(4)),
      candidatesPerSettled: Number((stats.candidateDistances / Math.max(1, stats.settled)).toFixed(1)),
      widened: stats.widened,
      fullRows: stats.fullRows,
      prepareMs: Math.round(stats.prepareMs),
      scoreMs: Math.round(stats.scoreMs),
      settleMs: Math.round(stats.settleMs),
    }
  // Where the labels differ, the exact float64 distances (the reference's) say who is right.
  let differ = 0
  let int8Exact = 0
  const row = new Float32Array(d)
  for (let i = 0; i < n; i++) {
    if (f.labels[i] === i8.labels[i]) continue
    differ++
    row.set(pointsF32.subarray(i * d, (i + 1) * d))
    const a = rowDistanceSq(row, 0, centroids, i8.labels[i], d)
    const b = rowDistanceSq(row, 0, centroids, f.labels[i], d)
    if (a < b || (a === b && i8.labels[i] < f.labels[i])) int8Exact++
  }
  report.labelsDiffer = differ
  report.differingWhereInt8IsExact = int8Exact
  await ort.dispose()
  await int8.dispose()
  report.peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024)
  process.stdout.write(`${JSON.stringify(report)}\n`)
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
