import { spawn } from 'node:child_process'
import { CodebookError } from '../errors.ts'
import { type SpawnWorker, workerCommand } from '../framework/spawn.ts'
import type { LabHost } from './lab-plan.ts'

/**
 * A {@link SpawnWorker} that runs rank i's worker inside lab host i's namespace
 * (`nsenter --net=/run/netns/<ns> node worker-entry --join …`, which is `ip netns exec` without
 * its extra waiting process: the child the pool holds, and kills, is the worker itself). The
 * worker listens on the namespace's own address (the one it reaches the driver from), so its
 * data plane crosses the lab's links.
 */
export function spawnInLab(hosts: readonly LabHost[]): SpawnWorker {
  const { command, args: base } = workerCommand()
  return (args, rank, env) => {
    const host = rank === undefined ? undefined : hosts[rank]
    if (!host)
      throw new CodebookError('LAB_NO_HOST', `no lab host for rank ${rank} (the lab has ${hosts.length})`)
    return spawn(
      'nsenter',
      [`--net=/run/netns/${host.netns}`, command, ...base, ...args, '--rack', host.rack],
      { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } },
    )
  }
}
