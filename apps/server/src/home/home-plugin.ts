import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { CodebookError } from '@codebook/runtime/errors'
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
 * (`server.lock`) whose mtime is refreshed, and `server.lock.owner` names its holder (pid, host):
 * a holder on this host whose pid is gone (kill -9) frees the lock at once; otherwise a crashed
 * server's lock goes stale after 10 s.
 */
async function homePluginImpl(app: FastifyInstance, options: HomePluginOptions): Promise<void> {
  const paths = homePaths(options.home)
  await mkdir(paths.home, { recursive: true })
  const lockPath = join(paths.home, 'server.lock')
  const ownerPath = `${lockPath}.owner`
  const lock = () =>
    lockfile.lock(paths.home, {
      lockfilePath: lockPath,
      stale: 10_000,
      onCompromised: (err) => app.log.error({ err }, 'lost the lock on the data home'),
    })
  let release: () => Promise<void>
  try {
    try {
      release = await lock()
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || !(await ownerIsGone(ownerPath))) throw err
      app.log.warn('the server that held the data home has exited (its pid is gone): taking the home over')
      await rm(lockPath, { recursive: true, force: true })
      release = await lock()
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new CodebookError(
        'HOME_LOCKED',
        `data home ${paths.home} is in use by another Codebook server; stop it or set CODEBOOK_HOME to another directory`,
      )
    }
    throw err
  }
  await writeFile(ownerPath, JSON.stringify({ pid: process.pid, host: hostname() } satisfies LockOwner))
  await Promise.all([mkdir(paths.datasets, { recursive: true }), mkdir(paths.uploads, { recursive: true })])
  app.decorate('home', paths)
  // Registered first, so this runs after every other plugin's onClose (they close in reverse order).
  app.addHook('onClose', async () => {
    await rm(ownerPath, { force: true })
    await release()
  })
}

/** Who holds a home's lock (`server.lock.owner`). */
interface LockOwner {
  pid: number
  host: string
}

/**
 * Whether the lock's recorded holder is a process of this host that no longer exists. Any doubt
 * (no owner file, another host, a pid that answers — even a reused one) keeps the lock: then only
 * its 10 s staleness frees it.
 */
async function ownerIsGone(ownerPath: string): Promise<boolean> {
  let owner: LockOwner
  try {
    owner = JSON.parse(await readFile(ownerPath, 'utf8')) as LockOwner
  } catch {
    return false
  }
  if (owner.host !== hostname() || !Number.isInteger(owner.pid) || owner.pid <= 0) return false
  try {
    process.kill(owner.pid, 0)
    return false
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** Decorates `app.home` and holds the lock on `$CODEBOOK_HOME` until the app closes. */
export const homePlugin = fp(homePluginImpl, { name: 'codebook-home', fastify: '5.x' })
