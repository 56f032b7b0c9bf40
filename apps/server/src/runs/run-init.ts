import { createRng, kmeansPlusPlus, type OpenNpy, sampleInitRows, UsageError } from '@codebook/runtime'

/**
 * Seeded k-means++ initial centroids over the runtime's init sample of an open .npy, so a run
 * and `codebook kmeans --seed S` start alike.
 * @throws UsageError `KMEANS_BAD_K` when k exceeds the vectors sampled.
 */
export async function kmeansPlusPlusInit(f: OpenNpy, k: number, seed: number): Promise<Float32Array> {
  const { rows, m } = await sampleInitRows(f, seed)
  if (k > m) throw new UsageError('KMEANS_BAD_K', `k = ${k} exceeds the ${m} vectors the init samples`)
  return kmeansPlusPlus(rows, f.d, k, createRng(seed))
}
