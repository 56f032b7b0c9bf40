import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { inject } from 'vitest'
import type { Config } from '../config.ts'

/** A database backend the DB tests run against. */
export interface TestDriver {
  name: 'pglite' | 'postgres'
  /** A fresh, empty database for one test; undefined URL means PGlite in the home. */
  create(): Promise<{ databaseUrl: string | undefined; drop(): Promise<void> }>
}

const pgliteDriver: TestDriver = {
  name: 'pglite',
  create: async () => ({ databaseUrl: undefined, drop: async () => undefined }),
}

let counter = 0

/** PostgreSQL: every test gets its own database created on the server of `baseUrl`, dropped after. */
function postgresDriver(baseUrl: string): TestDriver {
  return {
    name: 'postgres',
    async create() {
      const name = `codebook_test_${process.pid}_${Date.now()}_${counter++}`
      const admin = new pg.Client({ connectionString: baseUrl })
      await admin.connect()
      try {
        await admin.query(`CREATE DATABASE ${name}`)
      } finally {
        await admin.end()
      }
      const url = new URL(baseUrl)
      url.pathname = `/${name}`
      return {
        databaseUrl: url.toString(),
        async drop() {
          const client = new pg.Client({ connectionString: baseUrl })
          await client.connect()
          try {
            await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
          } finally {
            await client.end()
          }
        },
      }
    },
  }
}

/**
 * PGlite always; PostgreSQL too when the test environment sets DATABASE_URL (CI does).
 * Tests are the one place besides config.ts that look at the environment: to pick backends.
 */
export function testDrivers(): TestDriver[] {
  const url = process.env.DATABASE_URL
  return url ? [pgliteDriver, postgresDriver(url)] : [pgliteDriver]
}

/** A temporary CODEBOOK_HOME, its `db/` a copy of the empty PGlite cluster made once by global-setup.ts. */
export async function makeTempHome(): Promise<{ home: string; remove(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), 'codebook-server-test-'))
  await cp(inject('pgliteTemplate'), join(home, 'db'), { recursive: true })
  return { home, remove: () => rm(home, { recursive: true, force: true }) }
}

/** The API token of every test server (config.apiToken). */
export const TEST_API_TOKEN = 'test-token-0123456789abcdef'

/** Headers a test write request sends. */
export const authHeaders = { authorization: `Bearer ${TEST_API_TOKEN}` }

/** Config for tests: port 0, no UI, no demo, silent logs. */
export function testConfig(
  home: string,
  databaseUrl: string | undefined,
  overrides: Partial<Config> = {},
): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    home,
    databaseUrl,
    webDist: undefined,
    seedDemo: false,
    logLevel: 'silent',
    maxUploadBytes: 64 * 1024 ** 3,
    maxConcurrentRuns: 1,
    maxWorkersPerRun: 16,
    maxQueuedRuns: 100,
    maxReadsPerClient: 16,
    apiToken: TEST_API_TOKEN,
    allowedOrigins: [],
    allowedHosts: [],
    uploadExpiryMs: 24 * 3600_000,
    maxExpandedBytes: 256 * 1024 ** 3,
    diskReserveBytes: 1024 ** 3,
    // Workers of join and slurm runs are on this machine in tests.
    workerLaunch: { joinHost: '127.0.0.1', listenHost: '127.0.0.1', joinTimeoutMs: 60_000 },
    ...overrides,
  }
}
