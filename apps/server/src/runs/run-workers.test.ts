import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { constants, getPriority } from 'node:os'
import { describe, expect, it } from 'vitest'
import { trackWorkers, WORKER_NICENESS } from './run-workers.ts'

/** The nice value of `pid` as the kernel reports it (field 19 of /proc/PID/stat). */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (in parentheses, which may hold spaces): state is field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[19 - 3])
}

// Issue 31, finding 2: a run's workers are nicer than the server, so its event loop comes first.
describe('run workers', () => {
  it.runIf(process.platform === 'linux')(
    'are spawned WORKER_NICENESS nicer than the server, and all killed on killAll',
    async () => {
      const workers = trackWorkers(
        () => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' }),
        new AbortController().signal,
      )
      workers.spawn([], 0, {})
      workers.spawn([], 1, {})
      const expected = Math.min(constants.priority.PRIORITY_LOW, niceOf(process.pid) + WORKER_NICENESS)
      expect(workers.pids()).toHaveLength(2)
      for (const pid of workers.pids()) {
        expect(niceOf(pid)).toBe(expected)
        expect(getPriority(pid)).toBe(expected)
      }
      await workers.killAll()
      expect(workers.pids()).toEqual([])
    },
  )
})
