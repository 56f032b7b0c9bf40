import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { hideServerPaths } from '../http/hide-paths.ts'
import { createAssignmentRunner } from './assignments/assignment-runner.ts'
import { createVocabularyRepo } from './vocabulary-repo.ts'
import { createVocabularyService, type VocabularyService } from './vocabulary-service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Vocabularies: summaries, delete, assignments (computed in a child process). */
    vocabularies: VocabularyService
  }
}

async function vocabulariesPluginImpl(app: FastifyInstance): Promise<void> {
  const runner = createAssignmentRunner({ hidePaths: (m) => hideServerPaths(m, app.home.home), log: app.log })
  app.decorate(
    'vocabularies',
    createVocabularyService({
      repo: createVocabularyRepo(app.db),
      paths: {
        datasets: app.home.datasets,
        runs: join(app.home.home, 'runs'),
        vocabularies: join(app.home.home, 'vocabularies'),
      },
      runner,
    }),
  )
  // A computation in flight is killed before the database closes.
  app.addHook('preClose', () => runner.close())
}

/** Decorates `app.vocabularies`. */
export const vocabulariesPlugin = fp(vocabulariesPluginImpl, {
  name: 'codebook-vocabularies',
  fastify: '5.x',
  dependencies: ['codebook-home', 'codebook-db'],
})
