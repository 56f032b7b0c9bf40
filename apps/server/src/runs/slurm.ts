import { execFile } from 'node:child_process'
import { JOIN_TOKEN_ENV } from '@codebook/runtime/collectives'
import { CodebookError } from '@codebook/runtime/errors'
import type { SlurmLaunch } from '@codebook/shared'

/** What one `sbatch` of worker tasks needs. */
export interface WorkerJobRequest {
  /** Worker tasks in this job (one per worker: the run's p, or 1 for a replacement). */
  tasks: number
  /** The run form's partition, nodes, tasks per node and time limit (nodes and tasks per node only for the first job). */
  launch: SlurmLaunch
  jobName: string
  /** The worker command line; the job runs it once per task with `srun`. */
  worker: readonly string[]
  /** The run's secret, passed to the tasks in `CODEBOOK_JOIN_TOKEN` (off command lines and `squeue`). */
  secret: string
  /** `--output` file (`%j`: the job id). */
  output: string
}

/** Quotes one word for the POSIX shell of `sbatch --wrap`. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** Runs a Slurm client command; a missing binary is `SLURM_UNAVAILABLE`, a refusal `code` with Slurm's message. */
function slurm(command: string, args: string[], env: NodeJS.ProcessEnv, code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout)
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT'
      reject(
        missing
          ? new CodebookError(
              'SLURM_UNAVAILABLE',
              `${command} is not installed on the server (slurm launcher)`,
            )
          : new CodebookError(code, `${command} failed: ${(stderr || err.message).trim()}`),
      )
    })
  })
}

/**
 * Submits worker tasks as one batch job and resolves to its job id. The job is
 * `srun --kill-on-bad-exit=0 WORKER…`: one worker per task, and a task that dies (a lost worker)
 * leaves the others running; its replacement is another job.
 * @throws CodebookError `SLURM_SUBMIT_FAILED` with sbatch's message, `SLURM_UNAVAILABLE`.
 */
export async function submitWorkerJob(req: WorkerJobRequest): Promise<string> {
  const { launch } = req
  const args = ['--parsable', `--job-name=${req.jobName}`, `--ntasks=${req.tasks}`, `--output=${req.output}`]
  if (launch.partition !== undefined) args.push(`--partition=${launch.partition}`)
  if (launch.timeLimit !== undefined) args.push(`--time=${launch.timeLimit}`)
  if (req.tasks > 1 && launch.nodes !== undefined) args.push(`--nodes=${launch.nodes}`)
  if (req.tasks > 1 && launch.tasksPerNode !== undefined)
    args.push(`--ntasks-per-node=${launch.tasksPerNode}`)
  // exec: the task is the worker process itself, so a killed worker leaves no orphan behind.
  args.push(`--wrap=exec srun --kill-on-bad-exit=0 ${req.worker.map(shellWord).join(' ')}`)
  const out = await slurm(
    'sbatch',
    args,
    { ...process.env, [JOIN_TOKEN_ENV]: req.secret },
    'SLURM_SUBMIT_FAILED',
  )
  // --parsable prints `JOBID` or `JOBID;CLUSTER`.
  const id = out.trim().split(';')[0] ?? ''
  if (!/^\d+$/.test(id))
    throw new CodebookError('SLURM_SUBMIT_FAILED', `sbatch printed no job id: '${out.trim()}'`)
  return id
}

/** Cancels jobs with `scancel` (a job that already ended is fine). */
export async function cancelJobs(ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  await slurm('scancel', [...ids], process.env, 'SLURM_CANCEL_FAILED')
}
