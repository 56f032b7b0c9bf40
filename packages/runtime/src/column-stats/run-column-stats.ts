import { blockBounds } from '../collectives/group.ts'
import { CodebookError } from '../errors.ts'
import { openNpy } from '../formats/index.ts'
import { asFloat64 } from '../framework/control-channel.ts'
import type { WorkerPool } from '../framework/worker-pool.ts'
import { columnStatsApplication } from './column-stats-app.ts'

/** Per-column statistics of a dataset. */
export interface ColumnStats {
  n: number
  d: number
  mean: Float64Array
  /** Population variance (divided by n). */
  variance: Float64Array
}

/**
 * Column statistics of the .npy `file` on the pool's workers: each loads a contiguous block of
 * rows, then one all-reduce of the shifted moments gives every worker the totals; the driver
 * reads them from rank 0 and checks every worker agrees on the row count.
 */
export async function runColumnStats(pool: WorkerPool, file: string): Promise<ColumnStats> {
  const f = await openNpy(file)
  const { n, d } = f
  const shift = n > 0 ? Array.from(await f.readRows(0, 1)) : new Array<number>(d).fill(0)
  await f.close()
  const ranks = Array.from({ length: pool.size }, (_, r) => r)
  const rows = blockBounds(n, pool.size)
  await Promise.all(
    ranks.map((r) =>
      pool.call(r, columnStatsApplication, {
        type: 'load',
        file,
        start: rows[r]!,
        count: rows[r + 1]! - rows[r]!,
        d,
      }),
    ),
  )
  const op = pool.nextOpId()
  const replies = await Promise.all(
    ranks.map((r) => pool.call(r, columnStatsApplication, { type: 'moments', ranks, op, shift })),
  )
  const sums = asFloat64(replies[0]!.blobs[0]!)
  if (sums[0] !== n || replies.some((m) => asFloat64(m.blobs[0]!)[0] !== n))
    throw new CodebookError('COLUMN_STATS_MISMATCH', `workers counted ${sums[0]} rows of ${n}`)
  const mean = new Float64Array(d)
  const variance = new Float64Array(d)
  for (let t = 0; t < d && n > 0; t++) {
    const m1 = sums[1 + t]! / n
    mean[t] = shift[t]! + m1
    variance[t] = Math.max(0, sums[1 + d + t]! / n - m1 * m1)
  }
  return { n, d, mean, variance }
}
