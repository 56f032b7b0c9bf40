import { availableParallelism } from 'node:os'
import { initOnPool, type WorkerPool } from '@codebook/runtime'
import type { RunParams } from '@codebook/shared'

/**
 * A run's seeded initial centroids (`params.init` over the runtime's init sample of the
 * dataset), computed by worker 0 of the run's pool — never on the server's event loop — the
 * same way `codebook kmeans --init M --seed S` computes them, so both start alike. Reports one
 * log line with the method and time.
 * @throws the worker's `KMEANS_BAD_K` when k exceeds the vectors sampled; `WORKER_LOST` on cancel.
 */
export async function initOnRunWorker(
  pool: WorkerPool,
  file: string,
  p: RunParams,
  log: (line: string) => Promise<unknown>,
): Promise<Float32Array> {
  const started = performance.now()
  const centroids = await initOnPool(pool, {
    file,
    method: p.init,
    k: p.k,
    seed: p.seed,
    kernel: p.kernel,
    // The other workers wait meanwhile: the init's kernel gets every core, as in the CLI.
    threads: availableParallelism(),
  })
  const ms = Math.round(performance.now() - started)
  await log(`${p.init} init of ${p.k} centroids (seed ${p.seed}) on worker 0 in ${ms} ms.`)
  return centroids
}
