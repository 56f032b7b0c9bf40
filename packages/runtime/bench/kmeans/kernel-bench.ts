/**
 * K-means compute benchmark: the ONNX Runtime dense kernel vs the TypeScript reference kernel,
 * and single-process Lloyd / Hamerly / Yinyang loops, on seeded synthetic data. Prints one JSON
 * object. Not a test: timings vary with machine load (note `uptime` with the figures).
 *
 *   npx tsx bench/kmeans/kernel-bench.ts --n 100000 --d 512 --k 1000 --iters 10 --blobs 2000
 *
 * --blobs 0 gives standard-normal data (no structure); --blobs B draws points around B centres.
 * Initial centroids are k distinct random rows (seed + 1), the same rows test/bench/anchors feeds
 * scikit-learn and FAISS.
 */
import { parseArgs } from 'node:util'
import type { AccelState } from '../../src/kmeans/accel/accel-state.ts'
import { createHamerlyState } from '../../src/kmeans/accel/hamerly.ts'
import { createYinyangState } from '../../src/kmeans/accel/yinyang.ts'
import { benchData } from '../../src/kmeans/bench-data.ts'
import { type ClusterSums, createClusterSums } from '../../src/kmeans/cluster-sums.ts'
import { createOrtKernel } from '../../src/kmeans/kernels/ort-kernel.ts'
import { assignReference } from '../../src/kmeans/kernels/reference-kernel.ts'

/** The Lloyd update as a map task does it: cluster sums kept across iterations, float64 means (an empty cluster keeps its centroid). */
function update(
  sums: ClusterSums,
  labels: Int32Array,
  previous: Float32Array,
  d: number,
  k: number,
): Float32Array {
  sums.update(labels, k)
  const { sums: s, counts } = sums.partials
  const next = previous.slice()
  for (let j = 0; j < k; j++) {
    if (counts[j] === 0) continue
    for (let t = 0; t < d; t++) next[j * d + t] = s[j * d + t] / counts[j]
  }
  return next
}

function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length
}

function round(x: number, digits = 3): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      n: { type: 'string', default: '20000' },
      d: { type: 'string', default: '128' },
      k: { type: 'string', default: '256' },
      iters: { type: 'string', default: '8' },
      blobs: { type: 'string', default: '0' },
      seed: { type: 'string', default: '1' },
      threads: { type: 'string' },
      block: { type: 'string', default: '4096' },
      'ref-rows': { type: 'string', default: '1000' },
      algos: { type: 'string', default: 'reference,lloyd,hamerly,yinyang' },
    },
  })
  const n = Number(values.n)
  const d = Number(values.d)
  const k = Number(values.k)
  const iters = Number(values.iters)
  const blobs = Number(values.blobs)
  const seed = Number(values.seed)
  const algos = new Set(values.algos.split(','))
  const generated = performance.now()
  const { points, init, checksum } = benchData(n, d, k, blobs, seed)
  const kernel = await createOrtKernel({
    blockRows: Number(values.block),
    ...(values.threads === undefined ? {} : { intraOpNumThreads: Number(values.threads) }),
  })
  const report: Record<string, unknown> = {
    n,
    d,
    k,
    iters,
    blobs,
    seed,
    checksum: round(checksum, 4),
    intraOpNumThreads: kernel.intraOpNumThreads,
    blockRows: kernel.blockRows,
    generateMs: Math.round(performance.now() - generated),
  }
  // Session creation and first-run allocation are one-off costs, kept out of the per-iteration figures.
  await kernel.assign(points.subarray(0, Math.min(n, 256) * d), init, d)

  if (algos.has('reference')) {
    const rows = Math.min(n, Number(values['ref-rows']))
    const t0 = performance.now()
    assignReference(points.subarray(0, rows * d), init, d)
    const ms = performance.now() - t0
    const t1 = performance.now()
    await kernel.assign(points.subarray(0, rows * d), init, d)
    const ortMs = performance.now() - t1
    report.referenceKernel = {
      rows,
      msPerIterationExtrapolated: Math.round((ms * n) / rows),
      speedupOfOrt: round(ms / ortMs, 1),
    }
  }

  if (algos.has('lloyd')) {
    let centroids = init
    const sums = createClusterSums(points, d)
    const perIteration: number[] = []
    const assignMs: number[] = []
    let last = 0
    for (let it = 0; it < iters; it++) {
      const t0 = performance.now()
      const { labels } = await kernel.assign(points, centroids, d)
      const t1 = performance.now()
      const next = update(sums, labels, centroids, d, k)
      last = sums.inertia(centroids)
      centroids = next
      perIteration.push(performance.now() - t0)
      assignMs.push(t1 - t0)
    }
    report.lloydOrt = {
      msPerIteration: Math.round(mean(perIteration)),
      assignMsPerIteration: Math.round(mean(assignMs)),
      perIterationMs: perIteration.map((v) => Math.round(v)),
      distanceFraction: 1,
      finalInertia: round(last, 1),
    }
  }

  const accelerated: Array<[string, () => AccelState]> = [
    ['hamerly', () => createHamerlyState(points, n, d, { dense: kernel })],
    ['yinyang', () => createYinyangState(points, n, d, { dense: kernel })],
  ]
  for (const [name, make] of accelerated) {
    if (!algos.has(name)) continue
    const state = make()
    const sums = createClusterSums(points, d)
    let centroids = init
    const perIteration: number[] = []
    const fractions: number[] = []
    let last = 0
    for (let it = 0; it < iters; it++) {
      const t0 = performance.now()
      const result = await state.assign(centroids, k)
      const next = update(sums, result.labels, centroids, d, k)
      last = sums.inertia(centroids)
      centroids = next
      perIteration.push(performance.now() - t0)
      fractions.push(result.distancesEvaluated / (n * k))
    }
    report[name] = {
      msPerIteration: Math.round(mean(perIteration)),
      msPerIterationAfterFirst: Math.round(mean(perIteration.slice(1))),
      perIterationMs: perIteration.map((v) => Math.round(v)),
      distanceFraction: fractions.map((f) => round(f, 4)),
      finalInertia: round(last, 1),
    }
  }
  await kernel.dispose()
  report.peakRssMB = Math.round(process.resourceUsage().maxRSS / 1024)
  process.stdout.write(`${JSON.stringify(report)}\n`)
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
