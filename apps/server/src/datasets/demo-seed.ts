import { randomUUID } from 'node:crypto'
import { access, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildDigitsDemo } from '@codebook/runtime/images'
import type { FastifyBaseLogger } from 'fastify'
import type { HomePaths } from '../home/home-plugin.ts'
import type { DatasetRepo } from './dataset-repo.ts'
import type { DatasetService } from './dataset-service.ts'
import { DEMO_UPLOAD_PREFIX } from './upload-names.ts'

/** The repository's digits image, from src/datasets or dist/datasets alike. */
export const DIGITS_PNG = fileURLToPath(new URL('../../../../data/digits.png', import.meta.url))

/** Name of the demo dataset. */
export const DEMO_NAME = 'digits demo (HOG)'

/** meta key set once the demo was created, so deleting it does not bring it back at the next start. */
export const DEMO_SEEDED_KEY = 'demo-seeded'

/** Dependencies of {@link seedDemo}. */
export interface SeedDeps {
  repo: DatasetRepo
  service: DatasetService
  paths: HomePaths
  log: FastifyBaseLogger
  pngPath?: string
}

/**
 * Creates the demo dataset on a home's first start: the runtime turns the digits image into a
 * gzipped HOG text file, which then goes through the normal import path (format `hog-text`).
 * A demo whose import failed (a first start cut short by a busy port or Ctrl+C leaves it
 * `INTERRUPTED`) is removed and seeded again; a demo the user deleted stays deleted.
 * @returns the new dataset's id, or undefined when nothing was seeded.
 */
export async function seedDemo(deps: SeedDeps): Promise<string | undefined> {
  const { repo, service, paths, log } = deps
  const seeded = (await repo.getMeta(DEMO_SEEDED_KEY)) as { datasetId?: string } | undefined
  if (seeded !== undefined) {
    const previous = seeded.datasetId === undefined ? undefined : await repo.get(seeded.datasetId)
    if (previous?.dataset.status !== 'failed') return undefined
    log.info(
      { datasetId: previous.dataset.id, error: previous.dataset.error },
      'the demo import failed: seeding it again',
    )
    await service.remove(previous.dataset.id)
  }
  const png = deps.pngPath ?? DIGITS_PNG
  try {
    await access(png)
  } catch {
    log.warn({ png }, 'demo dataset skipped: digits image not found')
    return undefined
  }
  const uploadId = `${DEMO_UPLOAD_PREFIX}${randomUUID()}.txt.gz`
  const uploadPath = join(paths.uploads, uploadId)
  // The .gz name makes the runtime gzip the HOG text (the papers' format, compressed).
  await buildDigitsDemo(png, uploadPath)
  const dataset = await service.startImport({
    name: DEMO_NAME,
    format: 'hog-text',
    uploadPath,
    uploadId,
    sourceBytes: (await stat(uploadPath)).size,
  })
  await repo.setMeta(DEMO_SEEDED_KEY, { datasetId: dataset.id, at: dataset.createdAt })
  log.info({ datasetId: dataset.id }, 'demo dataset seeded')
  return dataset.id
}
