import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { UsageError } from '../errors.ts'
import type { PeerAddress } from '../transport/data-plane.ts'

/** The environment variable a worker reads its join token from (`codebook worker`, spawned workers, Slurm tasks). */
export const JOIN_TOKEN_ENV = 'CODEBOOK_JOIN_TOKEN'

/**
 * Starts one worker process with the given worker arguments (`--join …`) for `rank` (so a
 * spawner can place ranks, e.g. one per network-lab host; the pool always passes it) and the
 * variables `env` adds to the spawner's own environment: the pool passes the rank's join token
 * there ({@link JOIN_TOKEN_ENV}), never on the command line, which any local user can read
 * (`ps`, /proc/PID/cmdline; a process's environment is readable by its owner only). A spawner
 * that drops `env` starts workers the pool refuses (JOIN_REFUSED). Injected into the pool.
 */
export type SpawnWorker = (args: string[], rank?: number, env?: Record<string, string>) => ChildProcess

/**
 * The command that runs a worker process, chosen by how this module itself is running. The entry
 * (`src/worker-entry.ts`) sits outside the framework: it is where the applications are named.
 * - from compiled JavaScript (dist/, the built `codebook` CLI): `node dist/worker-entry.js`;
 * - from TypeScript source (Vitest, `tsx`): `node --conditions=@codebook/source --import <tsx>
 *   src/worker-entry.ts`, so tests need no build. tsx is resolved from this package, so the
 *   command works from any working directory.
 */
export function workerCommand(): { command: string; args: string[] } {
  return entryCommand(defaultEntry())
}

/** The shipped worker entry, `.ts` or `.js` as this module itself. */
function defaultEntry(): URL {
  const ext = fileURLToPath(import.meta.url).endsWith('.ts') ? 'ts' : 'js'
  return new URL(`../worker-entry.${ext}`, import.meta.url)
}

/**
 * The command that runs the worker entry module `entry`: `node ENTRY.js`, or for a `.ts` entry
 * `node --conditions=@codebook/source --import <tsx> ENTRY.ts`. tsx is resolved from this
 * package, so the command works from any working directory.
 */
function entryCommand(entry: URL): { command: string; args: string[] } {
  const file = fileURLToPath(entry)
  if (!file.endsWith('.ts')) return { command: process.execPath, args: [file] }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return { command: process.execPath, args: ['--conditions=@codebook/source', '--import', tsx, file] }
}

/** The default {@link SpawnWorker}: a child process running {@link workerCommand}, stderr passed through. */
export function spawnLocalWorker(args: string[], rank?: number, env?: Record<string, string>): ChildProcess {
  return spawnWorkerEntry(defaultEntry())(args, rank, env)
}

/**
 * A {@link SpawnWorker} running another worker entry module (which calls `runWorker` with its own
 * list of applications): how a test serves an application that is not shipped.
 */
export function spawnWorkerEntry(entry: URL): SpawnWorker {
  const { command, args: base } = entryCommand(entry)
  return (args, _rank, env) =>
    spawn(command, [...base, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, ...env },
    })
}

/** Parses `HOST:PORT`. */
export function parseHostPort(s: string): PeerAddress {
  const i = s.lastIndexOf(':')
  const port = Number(s.slice(i + 1))
  if (i <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535)
    throw new UsageError('BAD_ADDRESS', `expected HOST:PORT, got '${s}'`)
  return { host: s.slice(0, i), port }
}
