import { join } from 'node:path'
import { socketEvents } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { LaunchSettings } from './run-launch.ts'
import { createRunRepo } from './run-repo.ts'
import { createRunService, type RunService } from './run-service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Run service: queue, execution on local worker processes, cancel, event log. */
    runs: RunService
  }
}

/** Options of {@link runsPlugin}. */
export interface RunsPluginOptions {
  workerLaunch: LaunchSettings
  maxConcurrentRuns: number
  maxWorkersPerRun: number
  maxQueuedRuns: number
}

async function runsPluginImpl(app: FastifyInstance, options: RunsPluginOptions): Promise<void> {
  const service = createRunService({
    repo: createRunRepo(app.db),
    getDataset: (id) => app.datasets.get(id),
    paths: {
      home: app.home.home,
      datasets: app.home.datasets,
      runs: join(app.home.home, 'runs'),
      vocabularies: join(app.home.home, 'vocabularies'),
    },
    feed: app.jobFeed,
    log: app.log,
    // Looked up per call: runs only need the topology store when a run names a topology.
    getTopology: (id, version) => app.topologies.getVersion(id, version),
    // The vocabularies plugin is registered after this one: looked up per call.
    removeVocabulary: (id) => app.vocabularies.remove(id),
    changed: (change) => app.io.emit(socketEvents.runChanged, change),
    workerLaunch: options.workerLaunch,
    maxConcurrentRuns: options.maxConcurrentRuns,
    maxWorkersPerRun: options.maxWorkersPerRun,
    maxQueuedRuns: options.maxQueuedRuns,
  })
  app.decorate('runs', service)
  await service.start()

  // preClose runs before any onClose: runs are aborted (workers shut down) while the DB is open.
  app.addHook('preClose', async () => {
    await service.shutdown()
  })
}

/** Decorates `app.runs`, marks runs cut off by a restart `interrupted`, re-queues queued ones. */
export const runsPlugin = fp(runsPluginImpl, {
  name: 'codebook-runs',
  fastify: '5.x',
  dependencies: ['codebook-home', 'codebook-db', 'codebook-jobs', 'codebook-datasets', 'codebook-topologies'],
})
