import { randomUUID } from 'node:crypto'
import { access, copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { DIGITS_PNG } from '../datasets/demo-seed.ts'
import { IMAGE_SET_UPLOAD_PREFIX } from '../datasets/upload-names.ts'
import type { ImageSetRepo } from './image-set-repo.ts'
import type { ImageSetService } from './image-set-service.ts'

/** Name of the demo image set. */
export const DEMO_IMAGE_SET_NAME = 'digits demo'

/** meta key set once the demo image set was created, so deleting it does not bring it back. */
export const DEMO_IMAGE_SET_KEY = 'demo-image-set-seeded'

/** Dependencies of {@link seedDemoImageSet}. */
export interface ImageSetSeedDeps {
  repo: ImageSetRepo
  service: ImageSetService
  /** Where uploads are staged (`$CODEBOOK_HOME/uploads`). */
  uploads: string
  log: FastifyBaseLogger
  pngPath?: string
}

/**
 * Creates the digits image set (data/digits.png: 20×20 cells, 5 grid rows per digit, 5,000
 * images) on a home's first start, through the normal upload path.
 * @returns the new set's id, or undefined when nothing was seeded.
 */
export async function seedDemoImageSet(deps: ImageSetSeedDeps): Promise<string | undefined> {
  const { repo, service, log } = deps
  if ((await repo.getMeta(DEMO_IMAGE_SET_KEY)) !== undefined) return undefined
  const png = deps.pngPath ?? DIGITS_PNG
  try {
    await access(png)
  } catch {
    log.warn({ png }, 'demo image set skipped: digits image not found')
    return undefined
  }
  const upload = join(deps.uploads, `${IMAGE_SET_UPLOAD_PREFIX}demo-${randomUUID()}`)
  await copyFile(png, upload)
  const set = await service.create(
    { name: DEMO_IMAGE_SET_NAME, kind: 'grid', grid: '20x20', rowsPerClass: 5 },
    upload,
  )
  await repo.setMeta(DEMO_IMAGE_SET_KEY, { imageSetId: set.id, at: set.createdAt })
  log.info({ imageSetId: set.id }, 'demo image set seeded')
  return set.id
}
