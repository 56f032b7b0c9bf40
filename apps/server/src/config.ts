import { isIP } from 'node:net'
import { availableParallelism, hostname } from 'node:os'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CodebookError } from '@codebook/runtime/errors'
import { z } from 'zod'
import type { LaunchSettings } from './runs/run-launch.ts'

/** Server configuration, parsed once from the environment by {@link loadConfig} and passed down. */
export interface Config {
  /** TCP port to listen on; 0 picks a free one. */
  port: number
  /** Interface to listen on. */
  host: string
  /** Absolute path of the data home: database, datasets, uploads. */
  home: string
  /** PostgreSQL URL; undefined means embedded PGlite under `$home/db`. */
  databaseUrl: string | undefined
  /** Directory of the built web UI to serve; undefined disables serving it. */
  webDist: string | undefined
  /** Whether to create the demo dataset on the first start of a home. */
  seedDemo: boolean
  /** pino level: fatal, error, warn, info, debug, trace or silent. */
  logLevel: string
  /** Largest accepted upload in bytes (tus and direct). */
  maxUploadBytes: number
  /** Runs executed at the same time; further runs wait in the queue. */
  maxConcurrentRuns: number
  /** Largest `workers` a run may ask for (each is a process on this machine). */
  maxWorkersPerRun: number
  /** Runs that may wait queued; more are refused with 429 QUEUE_FULL. */
  maxQueuedRuns: number
  /** Open reads (GETs of the API) one client address may have in progress; more → 429 TOO_MANY_READS. */
  maxReadsPerClient: number
  /** Token writes must present (CODEBOOK_API_TOKEN); undefined → generated at the home's first start. */
  apiToken: string | undefined
  /** Origins besides the server's own that browsers may call the API and socket.io from. */
  allowedOrigins: string[]
  /** Host names (besides IP literals and localhost) the server answers to; `.x.org` = x.org and its subdomains. */
  allowedHosts: string[]
  /** Unfinished tus uploads untouched this long are deleted (ms). */
  uploadExpiryMs: number
  /** Most bytes one compressed dataset upload may expand to while it is imported. */
  maxExpandedBytes: number
  /** Free disk an import never takes: uploads and expansions past it fail `INSUFFICIENT_SPACE`. */
  diskReserveBytes: number
  /** Workers of `join` and `slurm` runs: where they connect and how long a run waits for them. */
  workerLaunch: LaunchSettings
}

// Resolved from this file so it holds for src/ (tsx, tests) and dist/ alike: both sit one level below apps/server.
const defaultWebDist = fileURLToPath(new URL('../../web/dist', import.meta.url))

const GiB = 1024 ** 3

/**
 * Default of `CODEBOOK_MAX_WORKERS_PER_RUN`: twice the cores, at least 2. Workers beyond the cores
 * only share them (a run's iteration is CPU-bound); 2 × cores still lets a run overlap its
 * communication with compute, and the workers run 10 nicer than the server, so the server keeps
 * its share of the cores. (A rule of thumb, not a measured optimum: the 16-worker default it
 * replaces took health to 1.37 s on 2 cores, issue 31.)
 */
export function defaultMaxWorkersPerRun(cores = availableParallelism()): number {
  return Math.min(256, Math.max(2, 2 * cores))
}

const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes')

/** Empty strings count as unset, so `FOO= npm start` behaves like leaving FOO out. */
function unsetIfEmpty(value: unknown): unknown {
  return value === '' ? undefined : value
}

/** A positive whole number of bytes, `fallback` when unset. */
function byteCount(fallback: number) {
  return z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).default(fallback),
  )
}

const EnvSchema = z.object({
  PORT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(65535).default(8080)),
  HOST: z.preprocess(unsetIfEmpty, z.string().default('127.0.0.1')),
  CODEBOOK_HOME: z.preprocess(unsetIfEmpty, z.string().default('./.codebook')),
  DATABASE_URL: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL')
      .optional(),
  ),
  // Unset → the web package's dist; set to an empty string → do not serve a UI (API only).
  CODEBOOK_WEB_DIR: z.string().optional(),
  CODEBOOK_SEED_DEMO: z.preprocess(unsetIfEmpty, booleanText.default(true)),
  LOG_LEVEL: z.preprocess(
    unsetIfEmpty,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  CODEBOOK_MAX_UPLOAD_BYTES: byteCount(64 * GiB),
  CODEBOOK_MAX_CONCURRENT_RUNS: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(64).default(1)),
  CODEBOOK_MAX_WORKERS_PER_RUN: z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().min(1).max(256).default(defaultMaxWorkersPerRun()),
  ),
  CODEBOOK_MAX_QUEUED_RUNS: z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().min(1).max(100_000).default(100),
  ),
  CODEBOOK_MAX_READS_PER_CLIENT: z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().min(1).max(10_000).default(16),
  ),
  CODEBOOK_API_TOKEN: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .min(16, 'must be at least 16 characters')
      .regex(/^\S+$/, 'must not contain whitespace')
      .optional(),
  ),
  CODEBOOK_ALLOWED_ORIGINS: commaList((o) => o, isOrigin, 'is not an origin (scheme://host[:port], no path)'),
  CODEBOOK_ALLOWED_HOSTS: commaList(
    (h) => h.toLowerCase(),
    (h) => /^\.?[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(h),
    'is not a host name (no scheme, port or path; a leading dot allows subdomains)',
  ),
  CODEBOOK_UPLOAD_EXPIRY_HOURS: z.preprocess(
    unsetIfEmpty,
    z.coerce
      .number()
      .positive()
      .max(24 * 365)
      .default(24),
  ),
  // A fixed default rather than a multiple of the upload limit: 256 GiB of text is ~25 G values,
  // far past what one machine clusters, and a multiple of 64 GiB would bound nothing.
  CODEBOOK_MAX_EXPANDED_BYTES: byteCount(256 * GiB),
  // Imports leave this much of the home's disk free (the expansion is also capped by free − reserve).
  CODEBOOK_DISK_RESERVE_BYTES: byteCount(GiB),
  // Where workers on other hosts reach this server (join command, Slurm jobs); default this host's name.
  CODEBOOK_JOIN_HOST: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^[A-Za-z0-9.:_-]+$/)
      .optional(),
  ),
  CODEBOOK_JOIN_TIMEOUT_SECONDS: z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().min(1).max(86_400).default(600),
  ),
  // The command a Slurm task runs (words split on spaces), e.g. `codebook worker`; default this server's worker entry.
  CODEBOOK_SLURM_WORKER: z.preprocess(unsetIfEmpty, z.string().optional()),
})

/** A comma-separated list (empty by default): items trimmed and normalised, each one checked. */
function commaList(normalise: (item: string) => string, valid: (item: string) => boolean, problem: string) {
  return z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .default('')
      .transform((text, ctx) => {
        const items = text
          .split(',')
          .map((item) => normalise(item.trim()))
          .filter((item) => item !== '')
        for (const item of items.filter((i) => !valid(i)))
          ctx.addIssue({ code: 'custom', message: `${JSON.stringify(item)} ${problem}` })
        return items
      }),
  )
}

/** True for `http(s)://host[:port]` exactly as a browser sends it in `Origin`. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text
  } catch {
    return false
  }
}

/**
 * Parses the server configuration from environment variables (see CONTEXT.md for the table).
 * This is the only place that reads the environment; pass `process.env` from the entry point.
 * @throws CodebookError `CONFIG_INVALID` naming the variable and what was wrong with it.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new CodebookError('CONFIG_INVALID', `invalid environment: ${problems.join('; ')}`)
  }
  const e = parsed.data
  return {
    port: e.PORT,
    host: e.HOST,
    home: resolve(process.cwd(), e.CODEBOOK_HOME),
    databaseUrl: e.DATABASE_URL,
    webDist:
      e.CODEBOOK_WEB_DIR === undefined
        ? defaultWebDist
        : e.CODEBOOK_WEB_DIR === ''
          ? undefined
          : resolve(process.cwd(), e.CODEBOOK_WEB_DIR),
    seedDemo: e.CODEBOOK_SEED_DEMO,
    logLevel: e.LOG_LEVEL,
    maxUploadBytes: e.CODEBOOK_MAX_UPLOAD_BYTES,
    maxConcurrentRuns: e.CODEBOOK_MAX_CONCURRENT_RUNS,
    maxWorkersPerRun: e.CODEBOOK_MAX_WORKERS_PER_RUN,
    maxQueuedRuns: e.CODEBOOK_MAX_QUEUED_RUNS,
    maxReadsPerClient: e.CODEBOOK_MAX_READS_PER_CLIENT,
    apiToken: e.CODEBOOK_API_TOKEN,
    allowedOrigins: e.CODEBOOK_ALLOWED_ORIGINS,
    // A server started with HOST=some.name answers to that name without listing it again.
    allowedHosts:
      isIP(e.HOST) === 0 ? [...e.CODEBOOK_ALLOWED_HOSTS, e.HOST.toLowerCase()] : e.CODEBOOK_ALLOWED_HOSTS,
    uploadExpiryMs: e.CODEBOOK_UPLOAD_EXPIRY_HOURS * 3600_000,
    maxExpandedBytes: e.CODEBOOK_MAX_EXPANDED_BYTES,
    diskReserveBytes: e.CODEBOOK_DISK_RESERVE_BYTES,
    workerLaunch: {
      joinHost: e.CODEBOOK_JOIN_HOST ?? hostname(),
      // An address is bound as given; a host name may resolve to any interface, so all are bound.
      listenHost:
        e.CODEBOOK_JOIN_HOST !== undefined && isIP(e.CODEBOOK_JOIN_HOST) ? e.CODEBOOK_JOIN_HOST : '0.0.0.0',
      joinTimeoutMs: e.CODEBOOK_JOIN_TIMEOUT_SECONDS * 1000,
      slurmWorker: e.CODEBOOK_SLURM_WORKER?.split(/\s+/).filter((w) => w !== ''),
    },
  }
}
