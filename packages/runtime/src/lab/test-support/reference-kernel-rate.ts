/**
 * Times one worker's map task of `lab bench mapping` on the reference kernel, alone (500 × 128
 * points, k = 1,000: the bench's defaults): the CPU rate its simulations assume
 * (`REFERENCE_KERNEL_GFLOPS`). Prints `{"medianMs","gflops","times"}` over 7 runs after a warm-up.
 * Run from `packages/runtime`: `node --conditions=@codebook/source --import tsx src/lab/test-support/reference-kernel-rate.ts`.
 */
import { benchData } from '../../kmeans/bench-data.ts'
import { createReferenceKernel } from '../../kmeans/kernels/reference-kernel.ts'

const d = 128
const k = 1000
const n = 500
// The bench draws 12 workers' points at once (its init needs k ≤ points); one worker's share is timed.
const all = benchData(12 * n, d, k, 0, 1)
const points = all.points.subarray(0, n * d)
const kernel = createReferenceKernel()
await kernel.assign(points, all.init, d) // warm-up (JIT)
const times: number[] = []
for (let i = 0; i < 7; i++) {
  const t = performance.now()
  await kernel.assign(points, all.init, d)
  times.push(performance.now() - t)
}
times.sort((a, b) => a - b)
const medianMs = times[3]!
console.log(JSON.stringify({ medianMs, gflops: (n * k * d * 2) / (medianMs / 1000) / 1e9, times }))
