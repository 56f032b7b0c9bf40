import { collectiveApplication } from './collectives/collective-app.ts'
import { reductionBenchApplication } from './collectives/reduce/bench-reduction.ts'
import { columnStatsApplication } from './column-stats/column-stats-app.ts'
import type { Application } from './framework/application.ts'
import { kmeansApplication } from './kmeans/kmeans-app.ts'

/**
 * The applications every Codebook worker serves: the composition root of the framework (which
 * imports no application) and the applications built on it.
 */
export const workerApplications: readonly Application[] = [
  kmeansApplication,
  columnStatsApplication,
  reductionBenchApplication,
  collectiveApplication,
]
