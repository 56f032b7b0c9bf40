import { availableParallelism } from 'node:os'
import { DEFAULT_INIT_METHOD, type InitMethod, initMethods } from '@codebook/shared'
import type { z } from 'zod'
import { UsageError } from '../../errors.ts'
import { openNpy } from '../../formats/index.ts'
import { createRng } from '../../random/rng.ts'
import type { KernelFactory } from '../kernel-registry.ts'
import { kernelFactory as namedKernel } from '../kernel-registry.ts'
import type { AssignKernel } from '../kernels/assign-kernel.ts'
import type { InitRequest } from '../kmeans-messages.ts'
import { sampleInitRows } from './init-sample.ts'
import { kmeansParallelInit } from './kmeans-parallel.ts'
import { gatherRows, randomInit } from './random-init.ts'
import { weightedKmeansPlusPlus } from './weighted-kmeans-plus-plus.ts'

export { DEFAULT_INIT_METHOD, type InitMethod }
/** Seeded init methods (`@codebook/shared`'s list): the CLI's `--init` and the server's `CreateRun.init`. */
export const INIT_METHODS = initMethods

/** Whether a string names an init method. */
export function isInitMethod(value: string): value is InitMethod {
  return (initMethods as readonly string[]).includes(value)
}

/**
 * k initial centroids of the m × d `rows` by `method`, seeded by `seed`. `kernel` runs the
 * distance passes and blocks of k-means++ and k-means|| (exact TypeScript loops without one).
 * `kmeans++` is {@link weightedKmeansPlusPlus} with unit weights: the k-means++ distribution,
 * drawn by blocked rejection sampling (before issue 17 it was the sequential
 * `kmeansPlusPlus`, which draws other rows for the same seed and is k× slower).
 */
export async function computeInit(
  method: InitMethod,
  rows: Float32Array,
  m: number,
  d: number,
  k: number,
  seed: number,
  kernel?: AssignKernel,
): Promise<Float32Array> {
  const rng = createRng(seed)
  if (method === 'kmeans++') {
    if (!Number.isInteger(k) || k < 1 || k > m)
      throw new UsageError('KMEANS_BAD_K', `k = ${k} must be between 1 and the number of vectors (${m})`)
    // Blocked D² updates (one GEMM per ≤ 64 picks on a distance kernel), the k-means++ distribution.
    const picks = await weightedKmeansPlusPlus(rows, new Float64Array(m).fill(1), m, d, k, rng, kernel)
    return gatherRows(rows, picks, d)
  }
  if (method === 'random') return randomInit(rows, m, d, k, rng).centroids
  if (method === 'kmeans-parallel')
    return (await kmeansParallelInit(rows, m, d, k, { rng, kernel })).centroids
  // A request from another process is not type-checked: name what was asked for.
  throw new UsageError(
    'INIT_UNKNOWN_METHOD',
    `init method '${String(method)}' is not one of ${initMethods.join(', ')}`,
  )
}

/** The `init` message of the K-means application (its schema: `InitRequest`). */
export type InitFromFileRequest = z.infer<typeof InitRequest>

/**
 * The initial centroids of a run, from its data file: the one path both the CLI and the server
 * take (on the run's first worker process), so a seed gives the same centroids in both.
 * @throws UsageError `KMEANS_BAD_K` when k exceeds the vectors the init samples.
 */
export async function initFromFile(
  req: InitFromFileRequest,
  factory: KernelFactory | null = null,
): Promise<{ centroids: Float32Array; k: number; d: number }> {
  const f = await openNpy(req.file)
  let sample: { rows: Float32Array; m: number }
  try {
    // A random init draws k rows, so its sample holds at least k (a million-word vocabulary
    // starts from a million rows); the others keep the bounded sample (k-means++ is O(k² · d) there).
    sample = await sampleInitRows(f, req.seed, req.method === 'random' ? req.k : 0)
  } finally {
    await f.close()
  }
  const { rows, m } = sample
  if (req.k > m)
    throw new UsageError(
      'KMEANS_BAD_K',
      `k = ${req.k} exceeds the ${m} vectors the ${req.method} init samples${req.method === 'random' ? '' : ' (init random samples k rows)'}`,
    )
  // Random needs no kernel: it would pay the kernel's start-up (ORT sessions) for nothing.
  const kernel =
    req.method !== 'random'
      ? await (factory ?? namedKernel(req.kernel ?? 'reference'))({
          threads: req.threads ?? availableParallelism(),
        })
      : undefined
  try {
    const centroids = await computeInit(req.method, rows, m, f.d, req.k, req.seed, kernel)
    return { centroids, k: req.k, d: f.d }
  } finally {
    await kernel?.dispose()
  }
}
