import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres'
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import pg from 'pg'
import * as schema from './schema.ts'

/** The drizzle database the server uses, whichever driver backs it (both speak PostgreSQL). */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>

/** Which engine backs {@link Database}. */
export type DatabaseDriver = 'pglite' | 'postgres'

declare module 'fastify' {
  interface FastifyInstance {
    /** drizzle database over PGlite or PostgreSQL; closed when the app closes. */
    db: Database
    dbDriver: DatabaseDriver
  }
}

/** Options of {@link dbPlugin}. */
export interface DbPluginOptions {
  /** PostgreSQL URL; undefined → embedded PGlite in `pgliteDir`. */
  databaseUrl: string | undefined
  pgliteDir: string
  /**
   * PostgreSQL: called when the server ends an idle pooled connection (restart, administrator
   * termination). The pool drops that connection and opens a new one for the next query.
   */
  onConnectionLost?: (err: Error) => void
}

/** Longest close() waits for PostgreSQL connections to report closed after the pool has ended. */
const CLOSE_WAIT_MS = 5_000

// Same relative position from src/db and dist/db.
const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url))

/** An open database, its driver and how to close it. */
export interface OpenDatabase {
  db: Database
  driver: DatabaseDriver
  close(): Promise<void>
}

/** Opens the database for the given options and brings its schema up to date with the committed migrations. */
export async function openDatabase(options: DbPluginOptions): Promise<OpenDatabase> {
  if (options.databaseUrl !== undefined) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 })
    // Without a listener, an idle connection's error (the pool emits it) would crash the process.
    pool.on('error', (err) => options.onConnectionLost?.(err))
    // pool.end() resolves once its clients are asked to end, not once their sockets are closed;
    // close() waits for the latter so nothing is left connected (a DROP DATABASE … FORCE right
    // after it used to terminate the closing connections, whose errors then went unhandled).
    let open = 0
    let allClosed: (() => void) | undefined
    pool.on('connect', () => open++)
    pool.on('remove', () => {
      open--
      if (open === 0) allClosed?.()
    })
    const close = async () => {
      const closed = new Promise<void>((resolve) => {
        allClosed = resolve
      })
      await pool.end()
      // Bounded: a socket that never reports its close must not hang shutdown.
      if (open > 0) await Promise.race([closed, delay(CLOSE_WAIT_MS, undefined, { ref: false })])
    }
    try {
      const db = drizzleNodePg({ client: pool, schema })
      await migrateNodePg(db, { migrationsFolder })
      return { db, driver: 'postgres', close }
    } catch (err) {
      await close()
      throw err
    }
  }
  const client = await PGlite.create(join(options.pgliteDir))
  try {
    const db = drizzlePglite({ client, schema })
    await migratePglite(db, { migrationsFolder })
    return { db, driver: 'pglite', close: () => client.close() }
  } catch (err) {
    await client.close()
    throw err
  }
}

async function dbPluginImpl(app: FastifyInstance, options: DbPluginOptions): Promise<void> {
  const open = await openDatabase({
    ...options,
    onConnectionLost: (err) =>
      app.log.warn({ err }, 'a database connection was lost; the next query opens a new one'),
  })
  app.decorate('db', open.db)
  app.decorate('dbDriver', open.driver)
  app.addHook('onClose', async () => {
    await open.close()
  })
  app.log.info({ driver: open.driver }, 'database ready')
}

/** Decorates `app.db` (migrated on start) and closes it when the app closes. */
export const dbPlugin = fp(dbPluginImpl, {
  name: 'codebook-db',
  fastify: '5.x',
  dependencies: ['codebook-home'],
})
