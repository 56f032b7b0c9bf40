import type { Dataset, DatasetFormat, ListPageQuery, VectorStats } from '@codebook/shared'
import { and, desc, eq, getTableColumns, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { type ListPage, readPage } from '../db/list-page.ts'
import { datasets, meta } from '../db/schema.ts'

type DatasetRow = typeof datasets.$inferSelect

/** A dataset record as stored, with the stats the API detail does not include. */
export interface StoredDataset {
  dataset: Dataset
  stats: VectorStats | null
  uploadId: string | null
}

function toStored(row: DatasetRow): StoredDataset {
  return {
    dataset: {
      id: row.id,
      name: row.name,
      format: row.format,
      status: row.status,
      n: row.n,
      d: row.d,
      dtype: row.dtype,
      sourceBytes: row.sourceBytes,
      progress: row.progress,
      error: row.error,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    },
    stats: row.stats,
    uploadId: row.uploadId,
  }
}

/** Fields of a new dataset record (status `processing`). */
export interface NewDataset {
  id: string
  name: string
  format: DatasetFormat | null
  sourceBytes: number
  uploadId: string | null
}

/**
 * Dataset persistence over drizzle. Only portable SQL is used, so the same code runs on PGlite
 * and PostgreSQL. Timestamps come from the database clock (`now()`), which orders records.
 */
export interface DatasetRepo {
  insert(fields: NewDataset): Promise<StoredDataset>
  get(id: string): Promise<StoredDataset | undefined>
  getByUploadId(uploadId: string): Promise<StoredDataset | undefined>
  /** One page, newest first (400 `INVALID_CURSOR` for an unknown `before`). */
  list(page: ListPageQuery): Promise<ListPage<Dataset>>
  listProcessing(): Promise<StoredDataset[]>
  /** Writes progress only while still processing, so a late write cannot undo a final state. */
  setProgress(id: string, progress: number): Promise<void>
  markReady(id: string, stats: VectorStats): Promise<StoredDataset | undefined>
  markFailed(id: string, error: { code: string; message: string }): Promise<StoredDataset | undefined>
  delete(id: string): Promise<boolean>
  getMeta(key: string): Promise<unknown>
  setMeta(key: string, value: unknown): Promise<void>
}

/** Creates the {@link DatasetRepo} over a database. */
export function createDatasetRepo(db: Database): DatasetRepo {
  return {
    async insert(fields) {
      const [row] = await db
        .insert(datasets)
        .values({ ...fields, status: 'processing', progress: 0 })
        .returning()
      return toStored(row!)
    },
    async get(id) {
      const [row] = await db.select().from(datasets).where(eq(datasets.id, id))
      return row === undefined ? undefined : toStored(row)
    },
    async getByUploadId(uploadId) {
      const [row] = await db.select().from(datasets).where(eq(datasets.uploadId, uploadId))
      return row === undefined ? undefined : toStored(row)
    },
    async list(page) {
      // Every column but the statistics (kilobytes each, and the list does not show them).
      const { stats: _stats, ...columns } = getTableColumns(datasets)
      const listed = await readPage(
        db,
        { table: datasets, order: datasets.createdAt, id: datasets.id },
        page,
        (where, limit) =>
          db
            .select(columns)
            .from(datasets)
            .where(where)
            .orderBy(desc(datasets.createdAt), desc(datasets.id))
            .limit(limit),
      )
      return { ...listed, items: listed.items.map((row) => toStored({ ...row, stats: null }).dataset) }
    },
    async listProcessing() {
      const rows = await db.select().from(datasets).where(eq(datasets.status, 'processing'))
      return rows.map(toStored)
    },
    async setProgress(id, progress) {
      await db
        .update(datasets)
        .set({ progress, updatedAt: sql`now()` })
        .where(and(eq(datasets.id, id), eq(datasets.status, 'processing')))
    },
    async markReady(id, stats) {
      const [row] = await db
        .update(datasets)
        .set({
          status: 'ready',
          progress: 1,
          n: stats.n,
          d: stats.d,
          dtype: stats.dtype,
          format: stats.format,
          stats,
          error: null,
          updatedAt: sql`now()`,
        })
        .where(eq(datasets.id, id))
        .returning()
      return row === undefined ? undefined : toStored(row)
    },
    async markFailed(id, error) {
      const [row] = await db
        .update(datasets)
        .set({ status: 'failed', error, updatedAt: sql`now()` })
        .where(eq(datasets.id, id))
        .returning()
      return row === undefined ? undefined : toStored(row)
    },
    async delete(id) {
      const rows = await db.delete(datasets).where(eq(datasets.id, id)).returning({ id: datasets.id })
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
