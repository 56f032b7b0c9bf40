import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createStudyRepo } from './study-repo.ts'
import { createStudyService, type StudyService } from './study-service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Study service: queue, child process per study, cancel, delete. */
    studies: StudyService
  }
}

async function studiesPluginImpl(app: FastifyInstance): Promise<void> {
  const service = createStudyService({
    repo: createStudyRepo(app.db),
    feed: app.jobFeed,
    home: app.home.home,
    log: app.log,
  })
  app.decorate('studies', service)
  await service.start()
  // preClose runs before any onClose: the running study is stopped while the DB is open.
  app.addHook('preClose', async () => {
    await service.shutdown()
  })
}

/** Decorates `app.studies`, marks studies cut off by a restart `interrupted`, re-queues queued ones. */
export const studiesPlugin = fp(studiesPluginImpl, {
  name: 'codebook-studies',
  fastify: '5.x',
  dependencies: ['codebook-db', 'codebook-jobs'],
})
