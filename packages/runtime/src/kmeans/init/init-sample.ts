import type { OpenNpy } from '../../formats/index.ts'
import { createRng } from '../../random/rng.ts'

/** Init methods run on at most this many vectors, so the driver's init stays cheap on big data. */
export const INIT_SAMPLE_ROWS = 100_000

/**
 * The rows an init method runs on: an even, seeded stride over an open `.npy` (every row when
 * n ≤ {@link INIT_SAMPLE_ROWS}), widened to float32. The CLI and the server both start from it,
 * so a run and `codebook kmeans --seed S` begin from the same centroids. With `atLeast` above
 * the default sample the stride is ⌊n / atLeast⌋, so the sample holds at least that many rows.
 */
export async function sampleInitRows(
  f: Pick<OpenNpy, 'n' | 'd' | 'readRows'>,
  seed: number,
  atLeast = 0,
): Promise<{ rows: Float32Array; m: number }> {
  const { n, d } = f
  const stride =
    atLeast > INIT_SAMPLE_ROWS
      ? Math.max(1, Math.floor(n / atLeast))
      : Math.max(1, Math.ceil(n / INIT_SAMPLE_ROWS))
  // The offset has its own stream, so an init over a small (unsampled) dataset sees exactly
  // createRng(seed), the same init a library caller gets with the same seed.
  const offset = createRng(seed ^ 0x5bd1e995).int(stride)
  const sample = new Float32Array(Math.max(0, Math.ceil((n - offset) / stride)) * d)
  const block = stride * 4096
  let m = 0
  for (let start = 0; start < n; start += block) {
    const count = Math.min(block, n - start)
    const raw = await f.readRows(start, count)
    for (let i = 0; i < count; i++) {
      if ((start + i) % stride !== offset) continue
      for (let t = 0; t < d; t++) sample[m * d + t] = raw[i * d + t]!
      m++
    }
  }
  return { rows: sample.subarray(0, m * d), m }
}
