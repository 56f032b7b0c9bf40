import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CodebookError } from '@codebook/runtime/errors'
import type { LabelledImageSource } from '@codebook/runtime/evaluation'
import { openZipArchive } from '@codebook/runtime/images'
import type { CreateImageSetQuery, ImageSet } from '@codebook/shared'
import type { FastifyBaseLogger } from 'fastify'
import sharp from 'sharp'
import { ChildJobError } from '../child/child-job.ts'
import { ApiError } from '../http/api-error.ts'
import { createRequestQueue } from '../jobs/request-queue.ts'
import {
  type ImageSetCheckJob,
  type ImageSetSummary,
  PIXEL_BUDGET,
  type PixelBudget,
} from './image-set-check.ts'
import { checkImageSetInChild } from './image-set-check-process.ts'
import type { ImageSetLayout, ImageSetRepo, StoredImageSet } from './image-set-repo.ts'

/** Dependencies of {@link createImageSetService}. */
export interface ImageSetServiceDeps {
  repo: ImageSetRepo
  /** `$CODEBOOK_HOME/image-sets/`: one folder per set. */
  dir: string
  log: FastifyBaseLogger
  /** Whether queued or running evaluations use the set (it cannot be deleted then). */
  inUse: (id: string) => Promise<boolean>
  /** Pixel budgets of an upload (default {@link PIXEL_BUDGET}). */
  budget?: PixelBudget
}

/** The image-set service behind `/api/image-sets`. */
export interface ImageSetService {
  /**
   * Checks the uploaded file at `uploadPath` as the query describes in a child process (every image
   * decoded one at a time, refused by its header dimensions first), then moves it into the set's
   * folder and stores the set `ready`. The upload file is gone afterwards in every case. Bad input →
   * ApiError 400 with the check's code (`BAD_ZIP`, `NO_CLASS_FOLDERS`, `NOT_AN_IMAGE`,
   * `UNDECODABLE_IMAGE`, `ZIP_UNSAFE_PATH`, `GRID_MISMATCH`, `IMAGE_UNREADABLE`, `EVAL_ONE_CLASS`,
   * `IMAGE_TOO_LARGE`, `IMAGE_SET_TOO_LARGE`, …) naming the entry; nothing is stored.
   */
  create(query: CreateImageSetQuery, uploadPath: string): Promise<ImageSet>
  /** @throws ApiError 404 `IMAGE_SET_NOT_FOUND`. */
  get(id: string): Promise<ImageSet>
  /** Record and layout. @throws ApiError 404 `IMAGE_SET_NOT_FOUND`. */
  stored(id: string): Promise<StoredImageSet>
  /** Newest first. */
  list(): Promise<ImageSet[]>
  /** @throws ApiError 404 `IMAGE_SET_NOT_FOUND`, 409 `IMAGE_SET_IN_USE`. */
  remove(id: string): Promise<void>
  /** Image `index` (0-based, in label order) as PNG bytes. @throws ApiError 404 `IMAGE_NOT_FOUND`. */
  imagePng(id: string, index: number): Promise<Buffer>
  /** The runtime source that loads the set (for evaluations). */
  source(stored: StoredImageSet, limitPerClass?: number): LabelledImageSource
  /** Stops taking uploads; checks still waiting or running are refused with 503 `SHUTTING_DOWN`. */
  close(): Promise<void>
}

/** `IMAGE_SET_NOT_FOUND` (404). */
export function imageSetNotFound(id: string): ApiError {
  return new ApiError(404, 'IMAGE_SET_NOT_FOUND', `no image set with id ${id}`)
}

const ENTRIES_FILE = 'entries.json'

/** Image-set check children running at once; further uploads wait for a slot. */
export const MAX_CONCURRENT_CHECKS = 2

/** Parses `WxH`; the query schema has checked the shape. */
function parseGrid(grid: string): { cellWidth: number; cellHeight: number } {
  const [w, h] = grid.toLowerCase().split('x').map(Number)
  return { cellWidth: w!, cellHeight: h! }
}

/** Creates the {@link ImageSetService}. */
export function createImageSetService(deps: ImageSetServiceDeps): ImageSetService {
  const { repo, dir, log } = deps
  const budget = deps.budget ?? PIXEL_BUDGET
  // Checks waiting their turn hold only their upload on disk; two children decode at most two images.
  const checks = createRequestQueue<ImageSetCheckJob, ImageSetSummary>(
    {
      name: 'image-set check',
      concurrency: MAX_CONCURRENT_CHECKS,
      closedError: () =>
        new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down; upload again after it restarts'),
      run: checkImageSetInChild,
    },
    log,
  )
  /** Zip entry names by set id, read from entries.json once. */
  const entriesCache = new Map<string, string[]>()

  async function stored(id: string): Promise<StoredImageSet> {
    const s = await repo.get(id)
    if (s === undefined) throw imageSetNotFound(id)
    return s
  }

  function sourceFor(kind: 'grid' | 'zip', file: string, layout: Pick<ImageSetLayout, 'grid'>) {
    if (kind === 'zip') return { kind: 'zip', file } as const
    const g = layout.grid!
    return {
      kind: 'grid',
      file,
      cellWidth: g.cellWidth,
      cellHeight: g.cellHeight,
      rowsPerClass: g.rowsPerClass,
    } as const
  }

  function checkQuery(q: CreateImageSetQuery): ImageSetLayout['grid'] {
    if (q.kind === 'zip') {
      if (q.grid !== undefined || q.rowsPerClass !== undefined)
        throw new ApiError(400, 'IMAGE_SET_BAD_QUERY', 'grid and rowsPerClass apply to kind=grid only')
      return null
    }
    if (q.grid === undefined || q.rowsPerClass === undefined)
      throw new ApiError(
        400,
        'IMAGE_SET_BAD_QUERY',
        'kind=grid needs grid=WxH (cell size in pixels) and rowsPerClass (grid rows per class)',
      )
    const { cellWidth, cellHeight } = parseGrid(q.grid)
    if (cellWidth < 1 || cellHeight < 1)
      throw new ApiError(400, 'IMAGE_SET_BAD_QUERY', `grid cells must be at least 1×1, got ${q.grid}`)
    return { cellWidth, cellHeight, rowsPerClass: q.rowsPerClass, columns: 0 }
  }

  return {
    async create(query, uploadPath) {
      const id = randomUUID()
      const setDir = join(dir, id)
      try {
        const grid = checkQuery(query)
        const job: ImageSetCheckJob =
          grid === null
            ? { kind: 'zip', file: uploadPath, budget }
            : { kind: 'grid', file: uploadPath, ...grid, budget }
        const set = await checks.perform(job).catch((err: unknown) => {
          if (!(err instanceof ChildJobError || err instanceof CodebookError)) throw err
          // Name the upload, not the temporary file it was streamed to.
          const message = err.message.split(uploadPath).join(query.name)
          const status = err.code.endsWith('_CRASHED') ? 500 : 400
          throw new ApiError(status, err.code, message, { cause: err })
        })
        const layout: ImageSetLayout = {
          grid: grid && { ...grid, columns: set.columns },
          classCounts: set.classCounts,
          minSide: set.minSide,
          file: query.kind === 'zip' ? 'source.zip' : 'source.image',
        }
        const count = set.classCounts.reduce((a, b) => a + b, 0)
        await mkdir(setDir, { recursive: true })
        await rename(uploadPath, join(setDir, layout.file))
        if (query.kind === 'zip') await writeFile(join(setDir, ENTRIES_FILE), JSON.stringify(set.entries))
        const s = await repo.insertReady({
          id,
          name: query.name,
          kind: query.kind,
          classes: set.classes,
          count,
          layout,
        })
        log.info({ imageSetId: id, count }, 'image set stored')
        return s.imageSet
      } catch (err) {
        await rm(setDir, { recursive: true, force: true })
        throw err
      } finally {
        await rm(uploadPath, { force: true })
      }
    },

    async get(id) {
      return (await stored(id)).imageSet
    },

    stored,

    async list() {
      return (await repo.list()).map((s) => s.imageSet)
    },

    async remove(id) {
      await stored(id)
      if (await deps.inUse(id))
        throw new ApiError(
          409,
          'IMAGE_SET_IN_USE',
          `image set ${id} is used by a queued or running evaluation; cancel it first`,
        )
      await repo.remove(id)
      entriesCache.delete(id)
      await rm(join(dir, id), { recursive: true, force: true })
    },

    async imagePng(id, index) {
      const { imageSet, layout } = await stored(id)
      const count = imageSet.count ?? 0
      if (!Number.isInteger(index) || index < 0 || index >= count)
        throw new ApiError(404, 'IMAGE_NOT_FOUND', `image set ${id} has images 0…${count - 1}, not ${index}`)
      const file = join(dir, id, layout.file)
      if (layout.grid !== null) {
        const { cellWidth, cellHeight, columns } = layout.grid
        return sharp(file)
          .extract({
            left: (index % columns) * cellWidth,
            top: Math.floor(index / columns) * cellHeight,
            width: cellWidth,
            height: cellHeight,
          })
          .png()
          .toBuffer()
      }
      let entries = entriesCache.get(id)
      if (entries === undefined) {
        entries = JSON.parse(await readFile(join(dir, id, ENTRIES_FILE), 'utf8')) as string[]
        entriesCache.set(id, entries)
      }
      const zip = await openZipArchive(file)
      try {
        return await sharp(await zip.read(entries[index]!))
          .png()
          .toBuffer()
      } finally {
        zip.close()
      }
    },

    source(s, limitPerClass) {
      const file = join(dir, s.imageSet.id, s.layout.file)
      return {
        ...sourceFor(s.imageSet.kind, file, s.layout),
        ...(limitPerClass === undefined ? {} : { limitPerClass }),
      }
    },

    close: () => checks.queue.close(),
  }
}
