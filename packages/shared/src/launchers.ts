import { z } from 'zod'

/**
 * Where a run's workers come from: `local` (child processes of the server, the default), `slurm`
 * (a batch job of `codebook worker` tasks submitted with `sbatch`), `join` (the run waits for
 * `CODEBOOK_JOIN_TOKEN=SECRET codebook worker --join HOST:PORT` started by any means).
 */
export const runLaunchers = ['local', 'slurm', 'join'] as const
export const RunLauncher = z.enum(runLaunchers)
export type RunLauncher = z.infer<typeof RunLauncher>

/** A Slurm time limit as `sbatch --time` takes it: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`. */
const SLURM_TIME = /^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+(:\d{1,2}){0,2})$/

/** The `sbatch` request of a `slurm` run: one task per worker, spread as these say. */
export const SlurmLaunch = z.object({
  /** `--partition`; the cluster's default partition when absent. */
  partition: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'a Slurm partition name')
    .optional(),
  /** `--nodes`: how many nodes the workers are spread over. */
  nodes: z.number().int().positive().max(10_000).optional(),
  /** `--ntasks-per-node`: workers on one node at most. */
  tasksPerNode: z.number().int().positive().max(1024).optional(),
  /** `--time`, e.g. `30` (minutes), `2:00:00`, `1-12`. */
  timeLimit: z.string().regex(SLURM_TIME, 'a Slurm time limit such as 30, 2:00:00 or 1-12').optional(),
})
export type SlurmLaunch = z.infer<typeof SlurmLaunch>

/** A worker of a running run: the host it reported and the rack its topology gives that host. */
export const PlacedWorker = z.object({
  rank: z.number().int().nonnegative(),
  host: z.string(),
  rack: z.string(),
})
export type PlacedWorker = z.infer<typeof PlacedWorker>

/** How a run's workers were started, as its record shows it (null until the run started). */
export const RunLaunch = z.object({
  launcher: RunLauncher,
  /**
   * `join` and `slurm`: the command that joins this run, `CODEBOOK_JOIN_TOKEN=SECRET codebook worker
   * --join HOST:PORT [--host 0.0.0.0]` (the secret of this execution, in the environment, off `ps`).
   */
  joinCommand: z.string().optional(),
  /** `slurm`: every job submitted for this run (the workers', then each replacement's), oldest first. */
  slurmJobIds: z.array(z.string()).default([]),
  /** The workers now, by rank. */
  workers: z.array(PlacedWorker).default([]),
  /**
   * `join` and `slurm`, while the run waits for its first p workers: how many have joined, of how
   * many, and when the wait fails `POOL_REGISTER_TIMEOUT` unless another joins (ISO time; each
   * join restarts the join timeout); null once they all joined.
   * The runs list and the run page show it, so a run holding the run slot says why.
   */
  waiting: z
    .object({
      joined: z.number().int().nonnegative(),
      expected: z.number().int().positive(),
      timeoutAt: z.string(),
    })
    .nullable()
    .optional(),
})
export type RunLaunch = z.infer<typeof RunLaunch>
