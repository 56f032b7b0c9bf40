import type { DatasetFormat, DatasetStatus, VectorDtype, VectorStats } from '@codebook/shared'
import { bigint, doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * The server's tables. Migrations in `apps/server/drizzle/` are generated from this file with
 * `npm run db:generate -w @codebook/server`; never edit a generated migration by hand.
 */

/** One uploaded vector set. Files live under `$CODEBOOK_HOME/datasets/<id>/` once `status` is `ready`. */
export const datasets = pgTable(
  'datasets',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** Format the caller declared or the runtime detected; null until known. */
    format: text('format').$type<DatasetFormat>(),
    status: text('status').$type<DatasetStatus>().notNull(),
    n: integer('n'),
    d: integer('d'),
    dtype: text('dtype').$type<VectorDtype>(),
    sourceBytes: bigint('source_bytes', { mode: 'number' }).notNull(),
    progress: doublePrecision('progress').notNull().default(0),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    stats: jsonb('stats').$type<VectorStats>(),
    /** tus upload id (or the direct upload's file name) the dataset came from; lets a client find it again. */
    uploadId: text('upload_id').unique(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  },
  (t) => [index('datasets_created_at_idx').on(t.createdAt)],
)

/** Small server-wide facts that must survive restarts, e.g. whether the demo dataset was ever seeded. */
export const meta = pgTable('meta', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<unknown>().notNull(),
})
