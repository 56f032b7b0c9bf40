import { type ChildProcess, fork } from 'node:child_process'
import type { ChildCommand } from './child-command.ts'

/** Parent → child of a one-job child process. */
export type ToChildJob<Job> = { type: 'start'; job: Job } | { type: 'cancel' }

/** The child's last word: success, or a coded failure. Any other message is the job's own. */
export type ChildJobEnd = { type: 'done' } | { type: 'error'; code: string; message: string }

/** A failure of a child job: the code the child reported, or the parent's code for a crash. */
export class ChildJobError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** Options of {@link startChildJob}. */
export interface ChildJobOptions<Message> {
  /** Every message of the child other than `done` / `error`. */
  onMessage(message: Message): void
  /** The error for a child that exits without `done` or `error` (killed, out of memory, crashed). */
  crashed(exit: string): ChildJobError
}

/** A running one-job child process. */
export interface ChildJob {
  child: ChildProcess
  /** Resolves once the child has exited after `done`; rejects with a {@link ChildJobError}. */
  done: Promise<void>
  /**
   * Stops the child and resolves once it has exited: asks it to cancel, SIGKILL after `graceMs`
   * (0: SIGKILL at once, for children with nothing of their own to close).
   */
  stop(graceMs?: number): Promise<void>
}

/**
 * Forks `command`, sends it `job` and follows it to its exit: the shared plumbing of the
 * evaluation, dataset import and image-set check children (their entries use `serveChildJob`).
 * stdout is dropped, stderr inherited, messages are JSON over IPC.
 */
export function startChildJob<Job, Message extends { type: string }>(
  command: ChildCommand,
  job: Job,
  options: ChildJobOptions<Message>,
): ChildJob {
  const child = fork(command.entry, [], {
    execArgv: command.execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'json',
  })
  let failure: ChildJobError | undefined
  let finished = false
  child.on('message', (raw: { type: string }) => {
    if (raw.type === 'error') {
      const { code, message } = raw as Extract<ChildJobEnd, { type: 'error' }>
      failure ??= new ChildJobError(code, message)
    } else if (raw.type === 'done') finished = true
    else options.onMessage(raw as Message)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (failure) reject(failure)
      else if (finished) resolve()
      else reject(options.crashed(signal ?? `code ${code}`))
    })
  })
  // A failed fork is reported through `done`; keep the send from throwing on a dead channel.
  child.send({ type: 'start', job } satisfies ToChildJob<Job>, (err) => void err)
  return {
    child,
    done,
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return
      if (graceMs <= 0) child.kill('SIGKILL')
      else if (child.connected) child.send({ type: 'cancel' } satisfies ToChildJob<Job>, (err) => void err)
      const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(0, graceMs))
      await exited
      clearTimeout(timer)
    },
  }
}
