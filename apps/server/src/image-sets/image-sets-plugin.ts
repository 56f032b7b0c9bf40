import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { removeStrayUploads } from '../datasets/import-leftovers.ts'
import { IMAGE_SET_UPLOAD_PREFIX } from '../datasets/upload-names.ts'
import { createImageSetRepo } from './image-set-repo.ts'
import { seedDemoImageSet } from './image-set-seed.ts'
import { createImageSetService, type ImageSetService } from './image-set-service.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Image-set service: upload checks, list, images as PNG, delete. */
    imageSets: ImageSetService
  }
}

/** Options of {@link imageSetsPlugin}. */
export interface ImageSetsPluginOptions {
  seedDemo: boolean
}

async function imageSetsPluginImpl(app: FastifyInstance, options: ImageSetsPluginOptions): Promise<void> {
  const repo = createImageSetRepo(app.db)
  const dir = join(app.home.home, 'image-sets')
  await mkdir(dir, { recursive: true })
  // Uploads a dead server was still checking (a check answers within its request, so none is live now).
  const stray = await removeStrayUploads(app.home.uploads, [IMAGE_SET_UPLOAD_PREFIX])
  if (stray > 0) app.log.warn({ count: stray }, 'removed image-set uploads left by a crash')
  const service = createImageSetService({
    repo,
    dir,
    log: app.log,
    // Evaluations register later; until then nothing can use a set.
    inUse: (id) =>
      app.hasDecorator('evaluations') ? app.evaluations.usesImageSet(id) : Promise.resolve(false),
  })
  app.decorate('imageSets', service)

  let seeding: Promise<unknown> = Promise.resolve()
  if (options.seedDemo) {
    // In the background: decoding the digits image takes a moment and must not delay listening.
    app.addHook('onReady', async () => {
      seeding = seedDemoImageSet({ repo, service, uploads: app.home.uploads, log: app.log }).catch((err) =>
        app.log.error({ err }, 'demo image set could not be seeded'),
      )
    })
  }
  app.addHook('preClose', async () => {
    await seeding
    await service.close()
  })
}

/** Decorates `app.imageSets` and seeds the digits image set once. */
export const imageSetsPlugin = fp(imageSetsPluginImpl, {
  name: 'codebook-image-sets',
  fastify: '5.x',
  dependencies: ['codebook-home', 'codebook-db'],
})
