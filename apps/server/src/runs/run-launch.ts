import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { JOIN_TOKEN_ENV, type SpawnWorker, WorkerPool, workerCommand } from '@codebook/runtime/collectives'
import type { Run, RunLaunch } from '@codebook/shared'
import type { RunReporter } from './run-reporter.ts'
import { cancelJobs, submitWorkerJob } from './slurm.ts'

/** Server settings of the `join` and `slurm` launchers. */
export interface LaunchSettings {
  /** Interface the run's control listener binds for workers on other hosts (`0.0.0.0`: all). */
  listenHost: string
  /** Host name or address workers are told to join (in the join command and the Slurm job). */
  joinHost: string
  /** How long a run waits for its workers (or a replacement) to join, ms. */
  joinTimeoutMs: number
  /** The worker command a Slurm task runs; default: this server's own worker entry (a shared file system). */
  slurmWorker?: readonly string[]
}

/** What {@link startRunPool} needs. */
export interface LaunchContext {
  run: Run
  /** The run's own directory (Slurm output files go there). */
  runDir: string
  /** Where the launch, log lines and progress go (the server, from the run's driver process). */
  report: RunReporter
  signal: AbortSignal
  /** `local`: starts worker processes (tracked by the caller). */
  spawn: SpawnWorker
  settings: LaunchSettings
  /** `local`: the rack of each rank (worker i ↔ the topology's i-th node). */
  racks?: string[]
  /** `join`, `slurm`: the rack of a worker by its host name (the topology's node names). */
  rackOfHost?: (host: string) => string | undefined
}

/** A run's started pool and how its launch ends. */
export interface LaunchedPool {
  pool: WorkerPool
  /** Records the workers' hosts and racks when they changed (a replacement joined). */
  noteWorkers(): Promise<void>
  /** Closes the pool; for Slurm, cancels every job of the run. Safe to call more than once. */
  close(): Promise<void>
}

/**
 * Starts run `ctx.run`'s worker pool with its launcher: `local` spawns children; `join` waits for
 * `CODEBOOK_JOIN_TOKEN=SECRET codebook worker --join HOST:PORT` started by anyone; `slurm` submits the workers
 * with `sbatch` and replaces a lost one with another job. A worker without this execution's
 * secret is refused (`JOIN_REFUSED`). The launch (join command, Slurm job ids, worker hosts and
 * racks) is recorded on the run and announced in its log.
 */
export async function startRunPool(ctx: LaunchContext): Promise<LaunchedPool> {
  const { run, report, signal, settings } = ctx
  const p = run.params
  const launcher = p.launcher ?? 'local'
  const launch: RunLaunch = { launcher, slurmJobIds: [], workers: [] }
  const record = () => report.launched(launch)
  const secret = randomBytes(18).toString('base64url')
  const slurmWorker = (address: string) => [
    ...(settings.slurmWorker ?? localWorkerCommand()),
    '--join',
    address,
    '--host',
    '0.0.0.0',
  ]
  const submit = async (address: string, tasks: number, why: string) => {
    const id = await submitWorkerJob({
      tasks,
      launch: p.slurm ?? {},
      jobName: `codebook-${run.id.slice(0, 8)}`,
      worker: slurmWorker(address),
      secret,
      output: join(ctx.runDir, 'slurm-%j.out'),
    })
    launch.slurmJobIds.push(id)
    await report.say('info', `Slurm job ${id} submitted: ${why}.`)
    await record()
  }
  let joinAddress = ''
  // The pool waits up to joinTimeoutMs for each next worker: from its listening, then from each join.
  const joinDeadline = () => new Date(Date.now() + settings.joinTimeoutMs).toISOString()
  // A failed sbatch stops the wait for workers at once (with sbatch's error, not a timeout).
  const launchFailed = new AbortController()
  let announced: Promise<void> = Promise.resolve()
  const announce = async () => {
    await record()
    if (launcher === 'slurm') await submit(joinAddress, p.workers, `${p.workers} worker tasks`)
    else
      await report.say(
        'info',
        `Waiting for ${p.workers} worker${p.workers === 1 ? '' : 's'}: run on each host \`${launch.joinCommand}\`.`,
      )
  }
  const pool =
    launcher === 'local'
      ? await WorkerPool.start({ workers: p.workers, spawn: ctx.spawn, racks: ctx.racks, secret, signal })
      : await WorkerPool.start({
          workers: p.workers,
          spawn: null,
          secret,
          signal: AbortSignal.any([signal, launchFailed.signal]),
          host: settings.listenHost,
          registerTimeoutMs: settings.joinTimeoutMs,
          rackOfHost: ctx.rackOfHost,
          onListening: (a) => {
            joinAddress = `${settings.joinHost}:${a.port}`
            launch.waiting = { joined: 0, expected: p.workers, timeoutAt: joinDeadline() }
            // Workers on other hosts must take peers' connections on a routable interface; on loopback, stay there.
            const dataPlane = isLoopback(settings.joinHost) ? '' : ' --host 0.0.0.0'
            // The secret in the environment: on a command line any local user reads it (`ps`).
            launch.joinCommand = `${JOIN_TOKEN_ENV}=${secret} codebook worker --join ${joinAddress}${dataPlane}`
            announced = announce()
            announced.catch(() => launchFailed.abort())
          },
          onJoined: (joined, expected) => {
            if (launch.waiting) {
              launch.waiting = { joined, expected, timeoutAt: joinDeadline() }
              void record()
            }
            void report.progressed({
              phase: 'loading',
              fraction: joined / expected,
              message: `${joined} of ${expected} workers joined`,
            })
          },
          requestReplacement: (rank) =>
            launcher === 'slurm' ? submit(joinAddress, 1, `a replacement for worker ${rank}`) : undefined,
        }).catch(async (err: unknown) => {
          await cancelJobs(launch.slurmJobIds).catch(() => undefined)
          // The launch's own failure (e.g. sbatch refused the job) explains the stop better than POOL_ABORTED.
          await announced
          throw err
        })
  await announced
  const placed = () => pool.hosts.map((host, rank) => ({ rank, host, rack: pool.racks[rank] ?? '' }))
  launch.waiting = null
  launch.workers = placed()
  await record()
  let closing: Promise<void> | undefined
  return {
    pool,
    async noteWorkers() {
      const now = placed()
      if (JSON.stringify(now) === JSON.stringify(launch.workers)) return
      launch.workers = now
      await record()
    },
    close() {
      closing ??= pool.close().finally(() => cancelJobs(launch.slurmJobIds).catch(() => undefined))
      return closing
    },
  }
}

/** Whether `host` names this machine's loopback (workers joining it are on this machine). */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}

function localWorkerCommand(): string[] {
  const { command, args } = workerCommand()
  return [command, ...args]
}
