import { desc, eq, sql } from 'drizzle-orm'
import type { Database } from '../db/db-plugin.ts'
import { datasets, runs, vocabularies } from '../db/schema.ts'

/** A vocabulary with the run and dataset it came from, as stored. */
export interface VocabularyRecord {
  id: string
  runId: string
  k: number
  d: number
  createdAt: string
  datasetId: string
  /** Null once the dataset was deleted. */
  datasetName: string | null
  inertia: number | null
}

/** Vocabulary persistence: the records joined with their run and dataset, and delete. */
export interface VocabularyRepo {
  /** Every vocabulary, newest first. */
  list(): Promise<VocabularyRecord[]>
  get(id: string): Promise<VocabularyRecord | undefined>
  /** Deletes the record and clears the run's `vocabularyId`; false when there was none. */
  remove(id: string): Promise<boolean>
}

/** Creates the {@link VocabularyRepo} (portable SQL: PGlite and PostgreSQL). */
export function createVocabularyRepo(db: Database): VocabularyRepo {
  const columns = {
    id: vocabularies.id,
    runId: vocabularies.runId,
    k: vocabularies.k,
    d: vocabularies.d,
    createdAt: vocabularies.createdAt,
    runDatasetId: runs.datasetId,
    runInertia: runs.inertia,
    origin: vocabularies.origin,
    datasetName: datasets.name,
  }
  // A vocabulary kept when its run was deleted has the run's dataset and inertia in `origin`;
  // datasets may be deleted too: both sides are left joins.
  const select = () =>
    db
      .select(columns)
      .from(vocabularies)
      .leftJoin(runs, eq(runs.id, vocabularies.runId))
      .leftJoin(
        datasets,
        eq(datasets.id, sql`coalesce(${runs.datasetId}, ${vocabularies.origin}->>'datasetId')`),
      )
  const toRecord = (row: Awaited<ReturnType<typeof select>>[number]): VocabularyRecord => {
    const { runDatasetId, runInertia, origin, ...rest } = row
    return {
      ...rest,
      datasetId: runDatasetId ?? origin?.datasetId ?? '',
      inertia: runDatasetId !== null ? runInertia : (origin?.inertia ?? null),
      createdAt: row.createdAt.toISOString(),
    }
  }
  return {
    async list() {
      const rows = await select().orderBy(desc(vocabularies.createdAt), desc(vocabularies.id))
      return rows.map(toRecord)
    },
    async get(id) {
      const [row] = await select().where(eq(vocabularies.id, id))
      return row === undefined ? undefined : toRecord(row)
    },
    async remove(id) {
      return db.transaction(async (tx) => {
        const removed = await tx
          .delete(vocabularies)
          .where(eq(vocabularies.id, id))
          .returning({ id: vocabularies.id })
        if (removed.length === 0) return false
        await tx.update(runs).set({ vocabularyId: null }).where(eq(runs.vocabularyId, id))
        return true
      })
    },
  }
}
