import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createEvaluationRepo } from './evaluation-repo.ts'
import { createEvaluationService, type EvaluationService } from './evaluation-service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Evaluation service: queue, child process per evaluation, cancel. */
    evaluations: EvaluationService
  }
}

async function evaluationsPluginImpl(app: FastifyInstance): Promise<void> {
  const service = createEvaluationService({
    repo: createEvaluationRepo(app.db),
    imageSets: app.imageSets,
    vocabularies: app.vocabularies,
    feed: app.jobFeed,
    home: app.home.home,
    log: app.log,
  })
  app.decorate('evaluations', service)
  await service.start()
  // preClose runs before any onClose: the running evaluation is stopped while the DB is open.
  app.addHook('preClose', async () => {
    await service.shutdown()
  })
}

/** Decorates `app.evaluations`, marks evaluations cut off by a restart `interrupted`, re-queues queued ones. */
export const evaluationsPlugin = fp(evaluationsPluginImpl, {
  name: 'codebook-evaluations',
  fastify: '5.x',
  dependencies: ['codebook-db', 'codebook-jobs', 'codebook-image-sets', 'codebook-vocabularies'],
})
