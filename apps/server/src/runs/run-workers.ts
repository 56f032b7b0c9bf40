import type { ChildProcess } from 'node:child_process'
import { constants, getPriority, setPriority } from 'node:os'
import type { SpawnWorker } from '@codebook/runtime/collectives'

/** The worker processes of one run, tracked so cancel and shutdown can prove none survives. */
export interface RunWorkers {
  /** Spawns like `spawn` and tracks the child; one spawned after the abort is killed at once. */
  spawn: SpawnWorker
  /** PIDs of the workers alive now. */
  pids(): number[]
  /** SIGKILLs every worker still alive and resolves once all have exited. */
  killAll(): Promise<void>
}

/** How much nicer than the process spawning them workers run: the server's event loop comes first. */
export const WORKER_NICENESS = 10

/**
 * Lowers the priority of a just-spawned worker by {@link WORKER_NICENESS} (capped at the lowest).
 * Done right after the spawn, before the worker's runtime starts its threads, which inherit it. A
 * worker already gone (or a system refusing) keeps running as it is: a priority is no correctness matter.
 */
export function lowerPriority(child: ChildProcess): void {
  if (child.pid === undefined) return
  try {
    setPriority(child.pid, Math.min(constants.priority.PRIORITY_LOW, getPriority() + WORKER_NICENESS))
  } catch {
    // ESRCH (exited already) or EACCES: nothing to do.
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/**
 * Tracks the workers a run spawns through `spawn`, each started at a lower priority than the server
 * ({@link lowerPriority}). A replacement the runtime starts for a lost
 * rank after `signal` aborted is killed at once.
 */
export function trackWorkers(
  spawn: SpawnWorker,
  signal: AbortSignal,
  /** Called with the PIDs alive whenever a worker starts or exits. */
  onChange: (pids: number[]) => void = () => {},
): RunWorkers {
  const children = new Set<ChildProcess>()
  const pids = () => [...children].flatMap((c) => (c.pid === undefined ? [] : [c.pid]))
  return {
    spawn(args, rank, env) {
      const child = spawn(args, rank, env)
      lowerPriority(child)
      children.add(child)
      child.once('exit', () => {
        children.delete(child)
        onChange(pids())
      })
      if (signal.aborted) child.kill('SIGKILL')
      onChange(pids())
      return child
    },
    pids,
    async killAll() {
      for (const child of children) child.kill('SIGKILL')
      await Promise.all([...children].map(exited))
    },
  }
}
