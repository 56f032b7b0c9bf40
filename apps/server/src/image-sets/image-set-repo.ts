import type { ImageSet, ImageSetKind } from '@codebook/shared'
import { desc, eq } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { imageSets, meta } from '../db/schema.ts'

/** What the server keeps about an image set besides the API record (the row's `params`). */
export interface ImageSetLayout {
  /** Grid sets: cell size, grid rows per class and cells per grid row; null for a zip. */
  grid: { cellWidth: number; cellHeight: number; rowsPerClass: number; columns: number } | null
  /**
   * Images per class in label order. Both kinds store their images class by class (a grid's
   * classes are bands of rows), so image i of class c is image `Σ classCounts[<c] + i` of the set.
   */
  classCounts: number[]
  /** Smallest image side, to reject a patch that does not fit before an evaluation is queued. */
  minSide: number
  /** Source file name inside the set's folder. */
  file: string
}

/** A stored image set: the API record and its layout. */
export interface StoredImageSet {
  imageSet: ImageSet
  layout: ImageSetLayout
}

type Row = typeof imageSets.$inferSelect

function toStored(row: Row): StoredImageSet {
  const layout = row.params as ImageSetLayout
  return {
    imageSet: {
      id: row.id,
      name: row.name,
      kind: row.kind,
      status: row.status,
      classes: row.classes,
      count: row.count,
      grid:
        layout.grid === null
          ? null
          : {
              cellWidth: layout.grid.cellWidth,
              cellHeight: layout.grid.cellHeight,
              rowsPerClass: layout.grid.rowsPerClass,
            },
      error: row.error,
      createdAt: row.createdAt.toISOString(),
    },
    layout,
  }
}

/** Image-set persistence over drizzle (portable SQL: PGlite and PostgreSQL). */
export interface ImageSetRepo {
  /** Stores a checked, ready image set. */
  insertReady(v: {
    id: string
    name: string
    kind: ImageSetKind
    classes: string[]
    count: number
    layout: ImageSetLayout
  }): Promise<StoredImageSet>
  get(id: string): Promise<StoredImageSet | undefined>
  /** Newest first. */
  list(): Promise<StoredImageSet[]>
  /** True when a row was deleted. */
  remove(id: string): Promise<boolean>
  getMeta(key: string): Promise<unknown>
  setMeta(key: string, value: unknown): Promise<void>
}

/** Creates the {@link ImageSetRepo}. */
export function createImageSetRepo(db: Database): ImageSetRepo {
  return {
    async insertReady(v) {
      const [row] = await db
        .insert(imageSets)
        .values({
          id: v.id,
          name: v.name,
          kind: v.kind,
          status: 'ready',
          params: v.layout,
          classes: v.classes,
          count: v.count,
        })
        .returning()
      return toStored(row!)
    },
    async get(id) {
      const [row] = await db.select().from(imageSets).where(eq(imageSets.id, id))
      return row === undefined ? undefined : toStored(row)
    },
    async list() {
      const rows = await db.select().from(imageSets).orderBy(desc(imageSets.createdAt), desc(imageSets.id))
      return rows.map(toStored)
    },
    async remove(id) {
      const rows = await db.delete(imageSets).where(eq(imageSets.id, id)).returning({ id: imageSets.id })
      return rows.length > 0
    },
    async getMeta(key) {
      const [row] = await db.select().from(meta).where(eq(meta.key, key))
      return row?.value
    },
    async setMeta(key, value) {
      await db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } })
    },
  }
}
