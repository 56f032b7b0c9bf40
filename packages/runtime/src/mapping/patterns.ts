import { DEFAULT_PLAN_AGGREGATION } from '@codebook/shared'
import type { AggregationMode } from '../collectives/regroup/regroup.ts'
import {
  type BroadcastScheduleAlgorithm,
  broadcastSchedule,
  type ScheduledSend,
} from '../collectives/schedules/broadcast-schedule.ts'
import {
  centroidBlocks,
  partialBlockBytes,
  regroupSchedule,
} from '../collectives/schedules/regroup-schedule.ts'
import { UsageError } from '../errors.ts'
import { DEFAULT_CHUNK_BYTES } from '../transport/data-plane.ts'
import { type CommMatrix, CommMatrixBuilder } from './comm-matrix.ts'

/** The built-in communication patterns: Codebook's K-means iteration and the paper's benchmark shapes. */
export const mappingPatterns = ['kmeans', 'bt', 'sp', 'lu', 'dnn'] as const
export type MappingPattern = (typeof mappingPatterns)[number]

/**
 * One K-means iteration's communication choices (defaults: k 1,000, d 128, chain, and the ring
 * aggregation a plan across sites assumes — `DEFAULT_PLAN_AGGREGATION`, not a run's three-stage:
 * three-stage's all-to-all costs the same on every balanced placement, docs/mapping.md).
 */
export interface KmeansPatternOptions {
  k?: number
  d?: number
  broadcast?: BroadcastScheduleAlgorithm
  aggregation?: AggregationMode
  chunkBytes?: number
}

/**
 * Most ranks a K-means pattern is derived for: its schedules hold O(p²) sends (the all-to-all's
 * blocks, or the rings' p − 1 steps of p sends each), about 1 GB of send objects at p = 2,048.
 */
export const MAX_KMEANS_PATTERN_PROCESSES = 1024

/**
 * The matrix of any collective's schedule over `processes` ranks, each send one message of
 * its bytes (`broadcastSchedule`, `regroupSchedule`, …), e.g. `scheduleMatrix(8, broadcastSchedule('mst', ranks, 1 << 20, 1 << 19))`.
 */
export function scheduleMatrix(processes: number, ...schedules: readonly ScheduledSend[][]): CommMatrix {
  const b = new CommMatrixBuilder(processes)
  for (const sends of schedules) for (const s of sends) b.add(s.from, s.to, s.bytes, 1)
  return b.build()
}

/**
 * The communication of one K-means iteration on `processes` ranks, from the runtime's own
 * schedules: the broadcast of the k × d float32 centroids from rank 0 (members in rank order,
 * chunked as the data plane chunks), the regroup of dense partial blocks and the combine at
 * rank 0 (`regroupSchedule`). One slot per rank.
 */
export function kmeansPattern(processes: number, o: KmeansPatternOptions = {}): CommMatrix {
  const k = o.k ?? 1000
  const d = o.d ?? 128
  const aggregation = o.aggregation ?? DEFAULT_PLAN_AGGREGATION
  if (processes > MAX_KMEANS_PATTERN_PROCESSES)
    throw new UsageError(
      'PATTERN_TOO_LARGE',
      `the K-means pattern is derived from its schedules, O(p²) sends: at most ${MAX_KMEANS_PATTERN_PROCESSES} processes, got ${processes}`,
    )
  const ranks = Array.from({ length: processes }, (_, i) => i)
  const broadcast = broadcastSchedule(
    o.broadcast ?? 'chain',
    ranks,
    k * d * 4,
    o.chunkBytes ?? DEFAULT_CHUNK_BYTES,
  )
  const blockBytes = centroidBlocks(k, processes).map((c) => partialBlockBytes(c, d))
  const r = regroupSchedule(aggregation, ranks, blockBytes, new Array(processes).fill(1))
  return scheduleMatrix(processes, broadcast, r.regroup, r.combine)
}

/** Options of the NPB-shaped generators: the cubic grid edge G (class B: 102) and time steps. */
export interface StencilOptions {
  grid?: number
  steps?: number
}

/** The process grid NPB uses: rows × cols = N, as square as N allows. */
export function processGrid(n: number): { rows: number; cols: number } {
  let rows = Math.floor(Math.sqrt(n))
  while (n % rows !== 0) rows--
  return { rows, cols: n / rows }
}

/**
 * NPB BT and SP (multi-partition ADI solvers): a rows × cols torus where each rank exchanges
 * faces with its four torus neighbours and, from the diagonal sweep of the multi-partition,
 * with the two diagonal cells (r + 1, c − 1) and (r − 1, c + 1). Per step and neighbour: BT
 * sends 5 × 5 blocks (5 doubles × 2 ghost layers of a G/cols × G face, 3 messages); SP sends
 * scalar pentadiagonal data (5 doubles × 1 layer, 6 messages). Shapes, not traces.
 */
export function adiPattern(kind: 'bt' | 'sp', processes: number, o: StencilOptions = {}): CommMatrix {
  const g = o.grid ?? 102
  const steps = o.steps ?? 1
  const { rows, cols } = processGrid(processes)
  const face = 5 * 8 * Math.ceil(g / cols) * g * (kind === 'bt' ? 2 : 1)
  const messages = kind === 'bt' ? 3 : 6
  const b = new CommMatrixBuilder(processes)
  const at = (r: number, c: number) => ((r + rows) % rows) * cols + ((c + cols) % cols)
  const offsets = [
    [0, 1],
    [0, -1],
    [1, 0],
    [-1, 0],
    [1, -1],
    [-1, 1],
  ]
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++)
      for (const [dr, dc] of offsets) b.add(at(r, c), at(r + dr!, c + dc!), face * steps, messages * steps)
  return b.build()
}

/**
 * NPB LU (SSOR with a pipelined wavefront): a non-periodic rows × cols grid; each rank sends to
 * its north, south, east and west neighbours one small message per grid plane and sweep
 * (2G messages of 5 doubles × G/cols) plus a face exchange (5 doubles × 2 layers × G/cols × G):
 * many small, latency-bound messages.
 */
export function luPattern(processes: number, o: StencilOptions = {}): CommMatrix {
  const g = o.grid ?? 102
  const steps = o.steps ?? 1
  const { rows, cols } = processGrid(processes)
  const line = 5 * 8 * Math.ceil(g / cols)
  const b = new CommMatrixBuilder(processes)
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++)
      for (const [dr, dc] of [
        [0, 1],
        [0, -1],
        [1, 0],
        [-1, 0],
      ]) {
        const r2 = r + dr!
        const c2 = c + dc!
        if (r2 < 0 || r2 >= rows || c2 < 0 || c2 >= cols) continue
        b.add(r * cols + c, r2 * cols + c2, (2 * g * line + 2 * line * g) * steps, (2 * g + 1) * steps)
      }
  return b.build()
}

/** How data-parallel DNN training exchanges its parameters each step. */
export const dnnExchanges = ['parameter-server', 'allreduce'] as const
export type DnnExchange = (typeof dnnExchanges)[number]

/** Options of the DNN pattern: model bytes (default 244 MB, AlexNet's 61 M float32 parameters), exchange and servers. */
export interface DnnOptions {
  modelBytes?: number
  /** Default `parameter-server`. */
  exchange?: DnnExchange
  /** Parameter servers (ranks 0 … S − 1); default round(√N). */
  servers?: number
}

/**
 * Data-parallel DNN training, one step's parameter exchange. `parameter-server`: sharded
 * parameter servers; each worker pushes its gradient shard (model / S bytes) to each server and
 * pulls the updated shard back. `allreduce`: every rank is a worker and the gradients are summed
 * by the runtime's ring all-reduce (reduce-scatter, then all-gather, ranks in rank order), so
 * each rank sends 2(N − 1) blocks of model / N bytes to its successor.
 */
export function dnnPattern(processes: number, o: DnnOptions = {}): CommMatrix {
  const model = o.modelBytes ?? 244e6
  if (o.exchange === 'allreduce') {
    // The ring all-reduce's matrix in closed form (its schedule holds 2N(N − 1) sends: 134 M at 8,192 ranks).
    const b = new CommMatrixBuilder(processes)
    const hops = 2 * (processes - 1)
    for (let i = 0; i < processes; i++) b.add(i, (i + 1) % processes, (hops * model) / processes, hops)
    return b.build()
  }
  const servers = Math.min(processes - 1, o.servers ?? Math.max(1, Math.round(Math.sqrt(processes))))
  const b = new CommMatrixBuilder(processes)
  if (servers < 1) return b.build()
  const shard = model / servers
  for (let w = servers; w < processes; w++)
    for (let s = 0; s < servers; s++) {
      b.add(w, s, shard, 1)
      b.add(s, w, shard, 1)
    }
  return b.build()
}

/** Everything a built-in pattern can be tuned with. */
export interface PatternOptions extends KmeansPatternOptions, StencilOptions, DnnOptions {}

/** A built-in pattern's matrix, else `PATTERN_UNKNOWN`. */
export function patternMatrix(pattern: string, processes: number, o: PatternOptions = {}): CommMatrix {
  if (!Number.isInteger(processes) || processes < 2)
    throw new UsageError('BAD_PROCESSES', `a mapping needs at least 2 processes, got ${processes}`)
  switch (pattern) {
    case 'kmeans':
      return kmeansPattern(processes, o)
    case 'bt':
    case 'sp':
      return adiPattern(pattern, processes, o)
    case 'lu':
      return luPattern(processes, o)
    case 'dnn':
      return dnnPattern(processes, o)
    default:
      throw new UsageError(
        'PATTERN_UNKNOWN',
        `unknown pattern "${pattern}" (built in: ${mappingPatterns.join(', ')}; or a .npy file)`,
      )
  }
}
