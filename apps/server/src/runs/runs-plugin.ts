import { join } from 'node:path'
import type { IterationReport } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { LaunchSettings } from './run-launch.ts'
import { createRunRepo } from './run-repo.ts'
import { createRunService, type RunService } from './run-service.ts'
import { attachRunSocket, type RunEventPublisher } from './run-socket.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Run service: queue, execution on local worker processes, cancel, event log. */
    runs: RunService
    /**
     * Sends a run's stored events to the sockets watching it (`run:join`). The run service
     * publishes every event it records; tools that write a run's log themselves (benchmarks) use it too.
     */
    runEvents: RunEventPublisher
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
  const repo = createRunRepo(app.db)
  // The socket side needs the service's backlog reader and the service needs the socket's publisher.
  let readBacklog: RunService['events'] = async () => []
  const socket = attachRunSocket(app.io, (runId, after, limit) => readBacklog(runId, after, limit), {
    onReadError: (runId, err) => app.log.warn({ err, runId }, 'run events could not be read for a socket'),
  })
  const service = createRunService({
    repo,
    getDataset: (id) => app.datasets.get(id),
    paths: {
      home: app.home.home,
      datasets: app.home.datasets,
      runs: join(app.home.home, 'runs'),
      vocabularies: join(app.home.home, 'vocabularies'),
    },
    emit: (runId, event) => {
      if (event.type === 'iteration') app.metrics.observeIteration(event.data as IterationReport)
      socket.publish(runId, event)
    },
    log: app.log,
    // Looked up per call: runs only need the topology store when a run names a topology.
    getTopology: (id, version) => app.topologies.getVersion(id, version),
    workerLaunch: options.workerLaunch,
    maxConcurrentRuns: options.maxConcurrentRuns,
    maxWorkersPerRun: options.maxWorkersPerRun,
    maxQueuedRuns: options.maxQueuedRuns,
  })
  readBacklog = (runId, after, limit) => service.events(runId, after, limit)
  app.decorate('runs', service)
  app.decorate('runEvents', socket)
  await service.start()

  // preClose runs before any onClose: runs are aborted (workers shut down) while the DB is open.
  app.addHook('preClose', async () => {
    await service.shutdown()
  })
}

/** Decorates `app.runs`, marks runs cut off by a restart `interrupted`, re-queues queued ones, relays events. */
export const runsPlugin = fp(runsPluginImpl, {
  name: 'codebook-runs',
  fastify: '5.x',
  dependencies: [
    'codebook-home',
    'codebook-db',
    'codebook-realtime',
    'codebook-datasets',
    'codebook-topologies',
  ],
})
