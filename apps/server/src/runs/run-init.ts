import { createRng, kmeansPlusPlus, type OpenNpy, UsageError } from '@codebook/runtime'

/** k-means++ runs on at most this many vectors (an even, seeded stride), like `codebook kmeans`. */
const INIT_SAMPLE_ROWS = 100_000

/**
 * Seeded k-means++ initial centroids over (a sample of) an open .npy: the same stride sample and
 * rng streams as the CLI's `--init kmeans++`, so a run and `codebook kmeans --seed S` start alike.
 * @throws UsageError `KMEANS_BAD_K` when k exceeds the vectors sampled.
 */
export async function kmeansPlusPlusInit(f: OpenNpy, k: number, seed: number): Promise<Float32Array> {
  const { n, d } = f
  const stride = Math.max(1, Math.ceil(n / INIT_SAMPLE_ROWS))
  // Own stream for the offset, so a small (unsampled) dataset sees exactly createRng(seed).
  const offset = createRng(seed ^ 0x5bd1e995).int(stride)
  const picked = Math.ceil((n - offset) / stride)
  const sample = new Float32Array(Math.max(0, picked) * d)
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
  if (k > m) throw new UsageError('KMEANS_BAD_K', `k = ${k} exceeds the ${m} vectors the init samples`)
  return kmeansPlusPlus(sample.subarray(0, m * d), d, k, createRng(seed))
}
