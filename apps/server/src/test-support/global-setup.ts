import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A freshly initialised (empty, unmigrated) PGlite data directory to copy into test homes. */
    pgliteTemplate: string
  }
}

/**
 * PGlite's initdb takes seconds on a busy machine; it runs once here and every test home gets
 * a copy of the empty cluster. Migrations still run for real in each test's server.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), 'codebook-pglite-template-'))
  const dir = join(root, 'db')
  const client = await PGlite.create(dir)
  await client.close()
  project.provide('pgliteTemplate', dir)
  return () => rm(root, { recursive: true, force: true })
}
