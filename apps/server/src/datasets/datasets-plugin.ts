import { socketEvents } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { DatasetImportOptions } from './dataset-import-process.ts'
import { createDatasetRepo } from './dataset-repo.ts'
import { createDatasetService, type DatasetService } from './dataset-service.ts'
import { seedDemo } from './demo-seed.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Dataset service: background imports, list, preview, delete. */
    datasets: DatasetService
  }
}

/** Options of {@link datasetsPlugin}. */
export interface DatasetsPluginOptions {
  seedDemo: boolean
  /** Passed unchanged to the runtime's `importToStore` by the import child. */
  importOptions: DatasetImportOptions
  /** Free disk an import never takes (default `DISK_RESERVE_BYTES`, 1 GiB); see `DatasetServiceDeps`. */
  diskReserveBytes?: number
}

async function datasetsPluginImpl(app: FastifyInstance, options: DatasetsPluginOptions): Promise<void> {
  const repo = createDatasetRepo(app.db)
  const service = createDatasetService({
    repo,
    paths: app.home,
    emit: (event) => app.io.emit(socketEvents.datasetEvent, event),
    log: app.log,
    importOptions: options.importOptions,
    diskReserveBytes: options.diskReserveBytes,
  })
  app.decorate('datasets', service)

  const recovered = await service.recoverInterrupted()
  if (recovered > 0)
    app.log.warn({ count: recovered }, 'imports interrupted by the last shutdown marked failed')

  let seeding: Promise<unknown> = Promise.resolve()
  if (options.seedDemo) {
    // In the background: building the demo file takes a moment and must not delay listening.
    app.addHook('onReady', async () => {
      seeding = seedDemo({ repo, service, paths: app.home, log: app.log }).catch((err) =>
        app.log.error({ err }, 'demo dataset could not be seeded'),
      )
    })
  }

  // preClose runs before any onClose, so imports are settled while the database is still open.
  app.addHook('preClose', async () => {
    await seeding
    await service.shutdown()
  })
}

/** Decorates `app.datasets`, recovers imports cut off by a restart, seeds the demo once. */
export const datasetsPlugin = fp(datasetsPluginImpl, {
  name: 'codebook-datasets',
  fastify: '5.x',
  dependencies: ['codebook-home', 'codebook-db', 'codebook-realtime'],
})
