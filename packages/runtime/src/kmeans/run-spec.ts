import { availableParallelism } from 'node:os'
import type { KmeansSpec } from '@codebook/shared'
import type { KmeansRunOptions } from './run-kmeans.ts'

/**
 * The `runKmeans` options of a run spec (`KmeansSpec` of `@codebook/shared`: a server run's
 * params, or the CLI's flags): the one place the spec's names meet the runtime's.
 */
export function kmeansOptionsOf(spec: KmeansSpec) {
  const hnsw = spec.hnsw ?? {}
  return {
    maxIterations: spec.maxIterations,
    tol: spec.tol,
    slots: spec.slots,
    broadcast: spec.broadcast,
    chainOrder: spec.chainOrder,
    aggregation: spec.aggregation,
    reduction: spec.reduction,
    seed: spec.seed,
    kernel: spec.kernel,
    algorithm: spec.algorithm,
    assignment: spec.assignment,
    hnsw: {
      search: spec.approximateSearch,
      connectivity: hnsw.connectivity,
      expansionSearch: hnsw.expansion,
      scalar: hnsw.scalar,
      walkDegree: hnsw.walkDegree,
      walkMinRecall: hnsw.walkMinRecall,
    },
    recallSample: hnsw.recallSample,
    encoding: spec.encoding,
    partials: spec.partials,
  } satisfies Partial<KmeansRunOptions>
}

/**
 * Threads of each map task's kernel: workers sharing a host split its cores; a worker alone on
 * its host (joined from elsewhere) decides for itself (undefined: all of its host's cores).
 */
export function threadsPerTaskOf(
  hosts: readonly string[],
  workers: number,
  spawnedHere: boolean,
): number | undefined {
  if (!spawnedHere && new Set(hosts).size === workers) return undefined
  return Math.max(1, Math.floor(availableParallelism() / workers))
}
