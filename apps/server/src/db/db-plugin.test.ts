import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { makeTempHome, testDrivers } from '../test-support/test-server.ts'
import { openDatabase } from './db-plugin.ts'

const postgres = testDrivers().find((d) => d.name === 'postgres')

/** Backends the PostgreSQL server has open on database `name`, seen from a separate connection. */
async function backends(adminUrl: string, name: string, terminate = false): Promise<number> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    const query = terminate
      ? 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()'
      : 'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()'
    return (await admin.query(query, [name])).rowCount ?? 0
  } finally {
    await admin.end()
  }
}

// PostgreSQL only: PGlite runs in-process and has no connections to lose or leave open.
describe.skipIf(postgres === undefined)('PostgreSQL connections', () => {
  const cleanups: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })

  async function open(onConnectionLost?: (err: Error) => void) {
    const home = await makeTempHome()
    const created = await (postgres as NonNullable<typeof postgres>).create()
    cleanups.push(home.remove, created.drop)
    const url = created.databaseUrl as string
    const db = await openDatabase({ databaseUrl: url, pgliteDir: home.home, onConnectionLost })
    return { db, adminUrl: process.env.DATABASE_URL as string, name: new URL(url).pathname.slice(1) }
  }

  it('close() returns only once every pooled connection is closed on the server', async () => {
    const { db, adminUrl, name } = await open()
    // Five concurrent queries make the pool open five connections.
    await Promise.all(Array.from({ length: 5 }, () => db.db.execute(sql`SELECT pg_sleep(0.05)`)))
    expect(await backends(adminUrl, name)).toBeGreaterThanOrEqual(5)
    await db.close()
    expect(await backends(adminUrl, name)).toBe(0)
  })

  it('survives the server ending an idle connection, and the next query opens a new one', async () => {
    let lost: (err: Error) => void = () => {}
    const lostOne = new Promise<Error>((resolve) => {
      lost = resolve
    })
    const { db, adminUrl, name } = await open((err) => lost(err))
    cleanups.push(db.close)
    await db.db.execute(sql`SELECT 1`)
    expect(await backends(adminUrl, name, true)).toBeGreaterThanOrEqual(1)
    // 57P01: terminating connection due to administrator command.
    expect(await lostOne).toMatchObject({ code: '57P01' })
    const after = (await db.db.execute(sql`SELECT 41 + 1 AS answer`)) as unknown as { rows: unknown[] }
    expect(after.rows).toEqual([{ answer: 42 }])
  })
})
