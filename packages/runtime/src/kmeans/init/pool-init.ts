import { CodebookError } from '../../errors.ts'
import { asFloat32 } from '../../job/control-channel.ts'
import type { WorkerPool } from '../../job/worker-pool.ts'
import type { InitFromFileRequest } from './compute-init.ts'

/**
 * Computes a run's initial centroids on worker `rank` of the pool (`kmeans-init`, answered by
 * {@link initFromFile} in the worker process), so the driver's thread — the server's event loop —
 * stays free while the init's O(k · sample · d) work runs. Rejects with the worker's coded
 * error (`KMEANS_BAD_K`, …), or `WORKER_LOST` when the pool is closed meanwhile (cancel).
 */
export async function initOnPool(
  pool: WorkerPool,
  req: InitFromFileRequest,
  rank = 0,
): Promise<Float32Array> {
  const reply = await pool.request(rank, { type: 'kmeans-init', ...req })
  const { k, d } = reply.body.result as { k: number; d: number }
  const centroids = asFloat32(reply.blobs[0] ?? new Uint8Array(0))
  if (centroids.length !== k * d)
    throw new CodebookError(
      'INIT_BAD_REPLY',
      `kmeans-init: worker ${rank} sent ${centroids.length} values for k × d = ${k * d}`,
    )
  return centroids
}
