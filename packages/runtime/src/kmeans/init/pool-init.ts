import { CodebookError } from '../../errors.ts'
import { asFloat32 } from '../../framework/control-channel.ts'
import { parseControl } from '../../framework/protocol.ts'
import type { WorkerPool } from '../../framework/worker-pool.ts'
import { kmeansApplication } from '../kmeans-app.ts'
import { InitResult } from '../kmeans-messages.ts'
import type { InitFromFileRequest } from './compute-init.ts'

/**
 * Computes a run's initial centroids on worker `rank` of the pool (the K-means application's `init`, answered by
 * {@link initFromFile} in the worker process), so the driver's thread — the server's event loop —
 * stays free while the init's O(k · sample · d) work runs. Rejects with the worker's coded
 * error (`KMEANS_BAD_K`, …), or `WORKER_LOST` when the pool is closed meanwhile (cancel).
 */
export async function initOnPool(
  pool: WorkerPool,
  req: InitFromFileRequest,
  rank = 0,
): Promise<Float32Array> {
  const reply = await pool.call(rank, kmeansApplication, { type: 'init', ...req })
  const { k, d } = parseControl(InitResult, reply.result, 'kmeans init result')
  const centroids = asFloat32(reply.blobs[0] ?? new Uint8Array(0))
  if (centroids.length !== k * d)
    throw new CodebookError(
      'INIT_BAD_REPLY',
      `kmeans init: worker ${rank} sent ${centroids.length} values for k × d = ${k * d}`,
    )
  return centroids
}
