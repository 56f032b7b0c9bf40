import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { memberInput, runCollectiveOn } from '../collectives/collective-app.ts'
import { sha256 } from '../collectives/pattern.ts'
import type { PeerAddress } from '../transport/data-plane.ts'
import { JOIN_TOKEN_ENV, spawnLocalWorker, workerCommand } from './spawn.ts'
import { WorkerPool } from './worker-pool.ts'

const children: ChildProcess[] = []

/** Starts `worker-entry --join ADDRESS …` as `codebook worker` would, apart from the pool; stderr captured. */
function startWorker(a: PeerAddress, extra: string[]): ChildProcess & { stderrText: () => string } {
  const { command, args } = workerCommand()
  const child = spawn(command, [...args, '--join', `${a.host}:${a.port}`, ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr!.on('data', (b: Buffer) => {
    err += b.toString()
  })
  children.push(child)
  return Object.assign(child, { stderrText: () => err })
}

function exitCode(c: ChildProcess): Promise<number | null> {
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve(c.exitCode)
  return new Promise((r) => c.once('exit', (code) => r(code)))
}

/** A two-rank chain broadcast between workers on different racks: every member gets the root's bytes, all of them cross racks. */
async function expectCrossRackBroadcast(pool: WorkerPool, bytes: number): Promise<void> {
  const spec = {
    op: 'broadcast' as const,
    ranks: [0, 1],
    bytes,
    root: 0,
    seed: 3,
    algorithm: 'chain' as const,
    chainOrder: 'rank' as const,
  }
  const out = await runCollectiveOn(pool, spec)
  for (const o of out) expect(o.hash).toBe(sha256(memberInput(spec, 0)))
  expect(out[0]!.bytes.crossRackSent).toBe(bytes)
}

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

describe('WorkerPool with joined workers', () => {
  it('takes workers that register over TCP with --join, --token and --rack, and runs collectives on them', async () => {
    const started: ChildProcess[] = []
    const pool = await WorkerPool.start({
      workers: 2,
      spawn: null,
      // Exactly what `codebook worker --join HOST:PORT --token SECRET --rack R` runs, started apart from the pool.
      onListening: (a, secret) => {
        for (const rack of ['east', 'west']) started.push(startWorker(a, ['--token', secret, '--rack', rack]))
      },
    })
    try {
      expect([...pool.racks].sort()).toEqual(['east', 'west'])
      await expectCrossRackBroadcast(pool, 100_000)
    } finally {
      await pool.close()
    }
    for (const c of started) expect(await exitCode(c)).toBe(0)
  })

  it('refuses a worker without the secret or with a wrong one (JOIN_REFUSED, exit 2) and takes the one with it', async () => {
    let refused: ReturnType<typeof startWorker>[] = []
    const pool = await WorkerPool.start({
      workers: 1,
      spawn: null,
      secret: 's3cret',
      registerTimeoutMs: 30_000,
      onListening: (a) => {
        refused = [startWorker(a, []), startWorker(a, ['--token', 'guess'])]
        // The rightful worker joins only once both strangers were turned away.
        void Promise.all(refused.map(exitCode)).then(() => startWorker(a, ['--token', 's3cret']))
      },
    })
    try {
      expect(await Promise.all(refused.map(exitCode))).toEqual([2, 2])
      expect(refused[0]!.stderrText()).toMatch(/JOIN_REFUSED: .*no token/)
      expect(refused[1]!.stderrText()).toMatch(/JOIN_REFUSED: .*wrong token/)
      expect(pool.alive(0)).toBe(true)
    } finally {
      await pool.close()
    }
  })

  it('places joined workers by the host names they report, and replaces a lost one with the next to join', async () => {
    const racksOfHosts: Record<string, string> = { n1: 'r1', n2: 'r2', n3: 'r2' }
    let address: PeerAddress | undefined
    const asked: number[] = []
    const pool = await WorkerPool.start({
      workers: 2,
      spawn: null,
      registerTimeoutMs: 30_000,
      // As a topology whose nodes are named n1, n2, n3 (a Slurm topology.conf's short names).
      rackOfHost: (h) => racksOfHosts[h.split('.')[0]!],
      requestReplacement: (rank) => {
        asked.push(rank)
        startWorker(address!, ['--token', pool.secret, '--host-name', 'n3'])
      },
      onListening: (a, secret) => {
        address = a
        startWorker(a, ['--token', secret, '--host-name', 'n1.cluster', '--host', '0.0.0.0'])
        startWorker(a, ['--token', secret, '--host-name', 'n2'])
      },
    })
    try {
      const hostsByRack = pool.hosts.map((h, r) => `${h}@${pool.racks[r]}`).sort()
      expect(hostsByRack).toEqual(['n1.cluster@r1', 'n2@r2'])
      const lost = pool.hosts.indexOf('n2')
      const gone = new Promise<number>((r) => pool.onWorkerLost(r))
      process.kill(pool.pid(lost)!, 'SIGKILL')
      expect(await gone).toBe(lost)
      await pool.replace(lost)
      expect(asked).toEqual([lost])
      expect(pool.hosts[lost]).toBe('n3')
      expect(pool.racks[lost]).toBe('r2')
      // The replacement (and the worker listening on 0.0.0.0) serve a broadcast across racks.
      await expectCrossRackBroadcast(pool, 50_000)
    } finally {
      await pool.close()
    }
  })

  it('stops waiting for workers when its signal aborts (POOL_ABORTED)', async () => {
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 300)
    await expect(
      WorkerPool.start({ workers: 1, spawn: null, signal: ac.signal, registerTimeoutMs: 30_000 }),
    ).rejects.toMatchObject({ code: 'POOL_ABORTED' })
  })
})

describe.runIf(process.platform === 'linux')('WorkerPool with spawned workers', () => {
  it('hands each spawned worker its join token in the environment, never on the command line', async () => {
    const pool = await WorkerPool.start({ workers: 2, spawn: spawnLocalWorker })
    try {
      const lost = new Promise<number>((r) => pool.onWorkerLost(r))
      pool.child(1)!.kill('SIGKILL')
      await lost
      await pool.replace(1) // a respawn draws a new token the same way
      for (const rank of [0, 1]) {
        const pid = pool.child(rank)!.pid!
        // What `ps` shows any local user; the environment is readable by the owner only.
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
        const token = environ
          .find((v) => v.startsWith(`${JOIN_TOKEN_ENV}=`))
          ?.slice(JOIN_TOKEN_ENV.length + 1)
        expect(token).toMatch(new RegExp(`^r${rank}-g\\d+-[0-9a-f]{16}$`))
        expect(cmdline).toContain('--join')
        expect(cmdline).not.toContain('--token')
        expect(cmdline.join(' ')).not.toContain(token)
      }
    } finally {
      await pool.close()
    }
  })

  it('refuses a worker whose spawner drops the environment (fails closed: WORKER_START_FAILED)', async () => {
    await expect(
      WorkerPool.start({ workers: 1, spawn: (args) => spawnLocalWorker(args), registerTimeoutMs: 30_000 }),
    ).rejects.toMatchObject({ code: 'WORKER_START_FAILED' })
  })
})
