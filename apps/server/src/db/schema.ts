import type {
  DatasetFormat,
  DatasetStatus,
  JobKind,
  JobStatus,
  RunLaunch,
  RunParams,
  VectorDtype,
  VectorStats,
} from '@codebook/shared'
import {
  bigint,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core'

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

/**
 * The columns every stored job's table has (runs, evaluations, studies): the one lifecycle
 * `jobs/job-table.ts` moves through, guarded by `status`.
 */
const jobColumns = () => ({
  id: text('id').primaryKey(),
  status: text('status').$type<JobStatus>().notNull(),
  /** Why the job failed or was interrupted. */
  error: jsonb('error').$type<{ code: string; message: string }>(),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  startedAt: timestamp('started_at', { withTimezone: true, precision: 6 }),
  finishedAt: timestamp('finished_at', { withTimezone: true, precision: 6 }),
})

/** One K-means run. Its checkpoint is `$CODEBOOK_HOME/runs/<id>/centroids-<checkpointIteration>.npy`. */
export const runs = pgTable(
  'runs',
  {
    ...jobColumns(),
    // No foreign key: deleting a dataset must not erase the history of runs made from it.
    datasetId: text('dataset_id').notNull(),
    params: jsonb('params').$type<RunParams>().notNull(),
    /** Iterations finished (the checkpoint holds the centroids after this many). */
    iteration: integer('iteration').notNull().default(0),
    inertia: doublePrecision('inertia'),
    /** Iteration the checkpoint file holds; 0 = no checkpoint yet. */
    checkpointIteration: integer('checkpoint_iteration').notNull().default(0),
    vocabularyId: text('vocabulary_id'),
    /** How the workers were started (launcher, Slurm job ids, each worker's host and rack); null before the run ran. */
    launch: jsonb('launch').$type<RunLaunch>(),
    /** Research-log labels (`PATCH /api/runs/:id`): a user-given name (null: none), notes, tags. */
    name: text('name'),
    notes: text('notes').notNull().default(''),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
  },
  (t) => [index('runs_created_at_idx').on(t.createdAt), index('runs_status_idx').on(t.status)],
)

/**
 * The event feed of every stored job (runs, evaluations, studies): `seq` 1, 2, 3, … per job,
 * replayed to late socket clients. No foreign key (a job lives in its kind's table); a deleted
 * job's events are deleted with it.
 */
export const jobEvents = pgTable(
  'job_events',
  {
    kind: text('kind').$type<JobKind>().notNull(),
    jobId: text('job_id').notNull(),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').$type<unknown>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'job_events_pkey', columns: [t.kind, t.jobId, t.seq] })],
)

/** Centroids learned by a succeeded run: `$CODEBOOK_HOME/vocabularies/<id>.npy` (k × d float32). */
export const vocabularies = pgTable('vocabularies', {
  id: text('id').primaryKey(),
  runId: text('run_id').notNull(),
  k: integer('k').notNull(),
  d: integer('d').notNull(),
  /** Absolute path of the .npy at the time it was written. */
  path: text('path').notNull(),
  /**
   * Where it came from, copied from its run when the run is deleted and the vocabulary kept
   * (`DELETE /api/runs/:id?vocabulary=keep`); null while the run exists.
   */
  origin: jsonb('origin').$type<VocabularyOrigin>(),
  createdAt: timestamp('created_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
})

/** What a kept vocabulary remembers of its deleted run. */
export interface VocabularyOrigin {
  datasetId: string
  params: RunParams
  inertia: number | null
  /** Inertia of iteration 1, 2, … (the run's events are deleted with it). */
  inertiaHistory: number[]
}

/**
 * A named cluster description. Every save appends a row to `topology_versions`; runs record the
 * version they used, so editing a topology never rewrites the history of a finished run.
 */
export const topologies = pgTable(
  'topologies',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** Highest version saved; `topology_versions` holds 1 … latestVersion. */
    latestVersion: integer('latest_version').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  },
  (t) => [index('topologies_updated_at_idx').on(t.updatedAt)],
)

/** One saved state of a topology: the shared `Topology` JSON, immutable once written. */
export const topologyVersions = pgTable(
  'topology_versions',
  {
    topologyId: text('topology_id')
      .notNull()
      .references(() => topologies.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    body: jsonb('body').$type<unknown>().notNull(),
    /** Optional note the user gave when saving ("moved n7 to rack-b"). */
    message: text('message'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  },
  (t) => [unique('topology_versions_topology_id_version_unique').on(t.topologyId, t.version)],
)

/**
 * One accuracy-versus-vocabulary-size evaluation: params (image source, k list, HOG and split
 * settings) and, as each k finishes, its result appended to `results`.
 */
export const evaluations = pgTable(
  'evaluations',
  {
    ...jobColumns(),
    name: text('name').notNull(),
    params: jsonb('params').$type<unknown>().notNull(),
    /** 0 … 1 over the whole evaluation. */
    progress: doublePrecision('progress').notNull().default(0),
    /** One entry per finished k: accuracy, per-class accuracy, confusion matrix, misclassified samples. */
    results: jsonb('results').$type<unknown[]>().notNull().default([]),
  },
  (t) => [index('evaluations_created_at_idx').on(t.createdAt)],
)

/**
 * A labelled image set for evaluations: a grid image split into cells (labels by rows) or a zip
 * with one folder per class. Files live under `$CODEBOOK_HOME/image-sets/<id>/` once `ready`.
 */
export const imageSets = pgTable(
  'image_sets',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    kind: text('kind').$type<'grid' | 'zip'>().notNull(),
    status: text('status').$type<'processing' | 'ready' | 'failed'>().notNull(),
    /** How to read the source (grid cell size, rows per class, …). */
    params: jsonb('params').$type<unknown>().notNull(),
    /** Class names in label order; null until read. */
    classes: jsonb('classes').$type<string[]>(),
    /** Number of images; null until read. */
    count: integer('count'),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 6 }).notNull().defaultNow(),
  },
  (t) => [index('image_sets_created_at_idx').on(t.createdAt)],
)

/**
 * One discrete-event study of the non-clairvoyant reductions (`reductions`, `grid` or `markov`):
 * its parameters and, as each cell finishes, its rows appended to `results`.
 */
export const studies = pgTable(
  'studies',
  {
    ...jobColumns(),
    name: text('name').notNull(),
    kind: text('kind').$type<'reductions' | 'grid' | 'markov'>().notNull(),
    params: jsonb('params').$type<unknown>().notNull(),
    /** 0 … 1 over the whole study. */
    progress: doublePrecision('progress').notNull().default(0),
    results: jsonb('results').$type<unknown[]>().notNull().default([]),
  },
  (t) => [index('studies_created_at_idx').on(t.createdAt)],
)
