import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { CodebookError } from '@codebook/runtime'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import lockfile from 'proper-lockfile'

/** Absolute paths inside `$CODEBOOK_HOME`. */
export interface HomePaths {
  home: string
  /** Embedded PGlite data directory (unused with PostgreSQL). */
  db: string
  /** One directory per ready dataset: `datasets/<id>/`. */
  datasets: string
  /** tus and direct uploads while they arrive and are processed. */
  uploads: string
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Paths of the data home this server owns (locked for the life of the app). */
    home: HomePaths
  }
}

/** Options of {@link homePlugin}. */
export interface HomePluginOptions {
  home: string
}

/** Builds the path layout of a data home without touching the disk. */
export function homePaths(home: string): HomePaths {
  return { home, db: join(home, 'db'), datasets: join(home, 'datasets'), uploads: join(home, 'uploads') }
}

/**
 * Creates the home's directories and takes an exclusive lock on it, so a second server on the
 * same home fails fast instead of corrupting the embedded database. The lock is a directory
 * (`server.lock`) whose mtime is refreshed; a crashed server's lock goes stale after 10 s.
 */
async function homePluginImpl(app: FastifyInstance, options: HomePluginOptions): Promise<void> {
  const paths = homePaths(options.home)
  await mkdir(paths.home, { recursive: true })
  let release: () => Promise<void>
  try {
    release = await lockfile.lock(paths.home, {
      lockfilePath: join(paths.home, 'server.lock'),
      stale: 10_000,
      onCompromised: (err) => app.log.error({ err }, 'lost the lock on the data home'),
    })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new CodebookError(
        'HOME_LOCKED',
        `data home ${paths.home} is in use by another Codebook server; stop it or set CODEBOOK_HOME to another directory`,
      )
    }
    throw err
  }
  await Promise.all([mkdir(paths.datasets, { recursive: true }), mkdir(paths.uploads, { recursive: true })])
  app.decorate('home', paths)
  // Registered first, so this runs after every other plugin's onClose (they close in reverse order).
  app.addHook('onClose', async () => {
    await release()
  })
}

/** Decorates `app.home` and holds the lock on `$CODEBOOK_HOME` until the app closes. */
export const homePlugin = fp(homePluginImpl, { name: 'codebook-home', fastify: '5.x' })
