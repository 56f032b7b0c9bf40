import { readFileSync } from 'node:fs'
import { CreateRun, RunParams } from '@codebook/shared'
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { makeTempHome, testDrivers } from '../test-support/test-server.ts'
import { openDatabase } from './db-plugin.ts'

// Migration 0003 renames stored aggregations to the Map-Collective paper's names: old 'local'
// (local merge → all-to-all → gather) is 'three-stage', old 'three-stage' (ring) is 'ring'.
const migration = readFileSync(new URL('../../drizzle/0003_aggregation_names.sql', import.meta.url), 'utf8')
// Migration 0004 gives runs stored before issue 20 the reduction they ran: `regroup`.
const reductionMigration = readFileSync(
  new URL('../../drizzle/0004_run_reduction.sql', import.meta.url),
  'utf8',
)
// Migration 0007 gives runs stored before later fields the defaults that describe what they ran.
const defaultsMigration = readFileSync(
  new URL('../../drizzle/0007_run_param_defaults.sql', import.meta.url),
  'utf8',
)

// Migration 0008 gives runs stored before `init` existed the init they ran: k-means++.
const initMigration = readFileSync(
  new URL('../../drizzle/0008_run_init_default.sql', import.meta.url),
  'utf8',
)

// Migration 0010 moves runs' events into the one job feed (0011 then drops `run_events`).
const jobEventsMigration = readFileSync(
  new URL('../../drizzle/0010_run_events_into_job_events.sql', import.meta.url),
  'utf8',
)

describe.each(testDrivers())('aggregation names and reductions in stored runs on $name', (driver) => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })
  /** An empty, migrated database, dropped after the test; rows go in as an old server wrote them. */
  const freshDatabase = async () => {
    const home = await makeTempHome()
    const created = await driver.create()
    cleanups.push(home.remove, created.drop)
    const { db, close } = await openDatabase({ databaseUrl: created.databaseUrl, pgliteDir: home.home })
    cleanups.push(close)
    return db
  }

  it('swaps old local and three-stage in one step and leaves the other modes and fields', async () => {
    const db = await freshDatabase()
    const old = { local: 'local', ring: 'three-stage', direct: 'direct', allreduce: 'allreduce' }
    for (const [id, aggregation] of Object.entries(old))
      await db.execute(
        sql`INSERT INTO runs (id, dataset_id, status, params) VALUES (${id}, 'ds', 'succeeded', ${JSON.stringify({ aggregation, k: 2 })}::jsonb)`,
      )
    const stored = async () => {
      const r = (await db.execute(sql`SELECT id, params FROM runs ORDER BY id`)) as unknown as {
        rows: { id: string; params: { aggregation: string; k: number } }[]
      }
      return Object.fromEntries(r.rows.map((row) => [row.id, row.params]))
    }
    // Rows as an old server wrote them; the server ran the migration at start on an empty
    // table, so it runs again here on the old values.
    await db.execute(sql.raw(migration))
    const expected = {
      local: { aggregation: 'three-stage', k: 2 },
      ring: { aggregation: 'ring', k: 2 },
      direct: { aggregation: 'direct', k: 2 },
      allreduce: { aggregation: 'allreduce', k: 2 },
    }
    expect(await stored()).toEqual(expected)
  })

  it('gives runs stored without a reduction the regroup they ran, and leaves chosen ones', async () => {
    const db = await freshDatabase()
    const rows = {
      old: { aggregation: 'ring', k: 2 },
      chosen: { aggregation: 'ring', k: 2, reduction: 'tree-dyn' },
    }
    for (const [id, params] of Object.entries(rows))
      await db.execute(
        sql`INSERT INTO runs (id, dataset_id, status, params) VALUES (${id}, 'ds', 'succeeded', ${JSON.stringify(params)}::jsonb)`,
      )
    await db.execute(sql.raw(reductionMigration))
    const r = (await db.execute(sql`SELECT id, params FROM runs ORDER BY id`)) as unknown as {
      rows: { id: string; params: Record<string, unknown> }[]
    }
    expect(Object.fromEntries(r.rows.map((row) => [row.id, row.params]))).toEqual({
      chosen: { aggregation: 'ring', k: 2, reduction: 'tree-dyn' },
      old: { aggregation: 'ring', k: 2, reduction: 'regroup' },
    })
  })

  /** Stores `rows` (params by run id) as an old server wrote them, runs `migrationSql`, returns the params after it. */
  const migrateStored = async (rows: Record<string, object>, migrationSql: string) => {
    const db = await freshDatabase()
    for (const [id, params] of Object.entries(rows))
      await db.execute(
        sql`INSERT INTO runs (id, dataset_id, status, params) VALUES (${id}, 'ds', 'succeeded', ${JSON.stringify(params)}::jsonb)`,
      )
    await db.execute(sql.raw(migrationSql))
    const r = (await db.execute(sql`SELECT id, params FROM runs ORDER BY id`)) as unknown as {
      rows: { id: string; params: RunParams }[]
    }
    return Object.fromEntries(r.rows.map((row) => [row.id, row.params]))
  }

  it('gives runs stored before launcher, assignment, approximateSearch and partials their defaults, so they encode', async () => {
    const now = CreateRun.parse({ datasetId: 'ds', k: 2, maxIterations: 1, workers: 1 })
    const { launcher, assignment, approximateSearch, partials, ...before } = now
    const chosen = { ...now, assignment: 'approximate', approximateSearch: 'walk', partials: 'float32' }
    // Without the migration the old row cannot be served: responses are encoded through the schema.
    expect(() => z.encode(RunParams, before as RunParams)).toThrow()
    const stored = await migrateStored({ old: before, chosen }, defaultsMigration)
    expect(stored.old).toEqual({
      ...before,
      launcher: 'local',
      assignment: 'exact',
      approximateSearch: 'index',
      partials: 'exact',
    })
    expect(stored.chosen).toEqual(chosen)
    for (const params of Object.values(stored)) expect(z.encode(RunParams, params)).toEqual(params)
  })

  it('gives runs stored before init the k-means++ they ran, keeps a chosen init, so they encode', async () => {
    const now = CreateRun.parse({ datasetId: 'ds', k: 2, maxIterations: 1, workers: 1, init: 'random' })
    const { init, ...before } = now
    expect(init).toBe('random')
    expect(() => z.encode(RunParams, before as RunParams)).toThrow()
    const stored = await migrateStored({ old: before, chosen: now }, initMigration)
    expect(stored.old).toEqual({ ...before, init: 'kmeans++' })
    expect(stored.chosen).toEqual(now)
    for (const params of Object.values(stored)) expect(z.encode(RunParams, params)).toEqual(params)
  })

  it('moves every run event into the job feed with its seq, type, data and time', async () => {
    const db = await freshDatabase()
    // The table as migration 0001 made it (0011 dropped it), with events as an old server wrote them.
    await db.execute(
      sql.raw(`CREATE TABLE "run_events" ("run_id" text NOT NULL, "seq" integer NOT NULL, "type" text NOT NULL,
        "data" jsonb NOT NULL, "created_at" timestamp (6) with time zone DEFAULT now() NOT NULL)`),
    )
    const old = [
      ['a', 1, 'state', { status: 'queued' }, '2026-11-01T10:00:00.000001Z'],
      ['a', 2, 'log', { level: 'info', message: 'hi' }, '2026-11-01T10:00:01.5Z'],
      ['b', 1, 'iteration', { iteration: 1, inertia: 2.5 }, '2026-11-02T00:00:00Z'],
    ] as const
    for (const [run, seq, type, data, at] of old)
      await db.execute(
        sql`INSERT INTO run_events VALUES (${run}, ${seq}, ${type}, ${JSON.stringify(data)}::jsonb, ${at})`,
      )
    await db.execute(sql.raw(jobEventsMigration))
    const r = (await db.execute(
      sql`SELECT kind, job_id, seq, type, data, created_at = (SELECT created_at FROM run_events e WHERE e.run_id = j.job_id AND e.seq = j.seq) AS same_time FROM job_events j ORDER BY job_id, seq`,
    )) as unknown as { rows: Array<Record<string, unknown>> }
    expect(r.rows).toEqual(
      old.map(([run, seq, type, data]) => ({ kind: 'run', job_id: run, seq, type, data, same_time: true })),
    )
  })

  it('reads the old name local as three-stage in a new request', () => {
    const body = { datasetId: 'd', k: 2, maxIterations: 1, workers: 1 }
    expect(CreateRun.parse({ ...body, aggregation: 'local' }).aggregation).toBe('three-stage')
    expect(CreateRun.parse(body).aggregation).toBe('three-stage')
    expect(CreateRun.parse({ ...body, aggregation: 'ring' }).aggregation).toBe('ring')
    expect(() => CreateRun.parse({ ...body, aggregation: 'tree' })).toThrow()
  })
})
