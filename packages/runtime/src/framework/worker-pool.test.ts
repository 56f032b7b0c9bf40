import { type ChildProcess, spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { sha256 } from '../collectives/pattern.ts'
import { memberInput } from './collective-task.ts'
import { workerCommand } from './spawn.ts'
import { WorkerPool } from './worker-pool.ts'

describe('WorkerPool with joined workers', () => {
  it('takes workers that register over TCP with --join and --rack, and runs collectives on them', async () => {
    const children: ChildProcess[] = []
    const { command, args } = workerCommand()
    const pool = await WorkerPool.start({
      workers: 2,
      spawn: null,
      onListening: (a) => {
        // Exactly what `codebook worker --join HOST:PORT --rack R` runs, started apart from the pool.
        for (const rack of ['east', 'west'])
          children.push(
            spawn(command, [...args, '--join', `${a.host}:${a.port}`, '--rack', rack], { stdio: 'inherit' }),
          )
      },
    })
    try {
      expect([...pool.racks].sort()).toEqual(['east', 'west'])
      const spec = {
        op: 'broadcast' as const,
        ranks: [0, 1],
        bytes: 100_000,
        root: 0,
        seed: 3,
        algorithm: 'chain' as const,
        chainOrder: 'rank' as const,
      }
      const out = await pool.runCollective(spec)
      for (const o of out) expect(o.hash).toBe(sha256(memberInput(spec, 0)))
      // Different racks: every byte of the broadcast crosses racks.
      expect(out[0]!.bytes.crossRackSent).toBe(100_000)
    } finally {
      await pool.close()
    }
    for (const c of children) expect(c.exitCode ?? (await new Promise((r) => c.once('exit', r)))).toBe(0)
  })
})
