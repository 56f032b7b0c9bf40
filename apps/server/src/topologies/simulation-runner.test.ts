import type { SimulatedBroadcast } from '@codebook/shared'
import { afterEach, describe, expect, it } from 'vitest'
import { quietLog } from '../test-support/quiet-log.ts'
import type { SimulationJob } from './simulation-job.ts'
import { createSimulationRunner, type SimulationRunner } from './simulation-runner.ts'
import { papersTopology } from './topology-seed.ts'

const papers = papersTopology()

function broadcast(bytes: number, algorithms: SimulatedBroadcast[], nodes: number): SimulationJob {
  return {
    kind: 'broadcast',
    topology: papers,
    request: { topology: papers, bytes, algorithms, nodes: [nodes] },
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('simulation runner', () => {
  let runner: SimulationRunner | undefined
  afterEach(() => runner?.close())

  it('stops a what-if at its time limit, kills its process, and runs the next one on a fresh process', async () => {
    runner = createSimulationRunner({ timeoutMs: 12_000, maxQueued: 4 }, quietLog())
    // Warm up so the limit below measures simulation, not the process start.
    await runner.run(broadcast(1e6, ['chain'], 10))
    const first = runner.pid()!
    expect(alive(first)).toBe(true)
    const started = Date.now()
    // A random chain of 1 GB over 150 nodes takes ≈ 38 s here: far over the limit.
    const slow = runner.run(broadcast(1e9, ['chain-random'], 150))
    const next = runner.run(broadcast(1e6, ['simple'], 11))
    await expect(slow).rejects.toMatchObject({ code: 'SIM_TIMEOUT', statusCode: 422 })
    expect(Date.now() - started).toBeLessThan(20_000)
    // 1 MB from the root to 10 receivers over its 1 GbE NIC: 10 × 8 ms (+ latencies).
    const r = (await next) as { results: { seconds: number }[] }
    expect(r.results[0]!.seconds).toBeCloseTo(0.08, 2)
    expect(runner.pid()).not.toBe(first)
    await expect.poll(() => alive(first)).toBe(false)
  }, 60_000)

  it('answers a runtime error with its code, refuses work beyond the queue, and fails waiting work on close', async () => {
    runner = createSimulationRunner({ timeoutMs: 60_000, maxQueued: 1 }, quietLog())
    await expect(runner.run(broadcast(1, ['chain'], 500))).rejects.toMatchObject({
      code: 'SIM_TOO_MANY_NODES',
      statusCode: 400,
    })
    const running = runner.run(broadcast(1e9, ['chain-random'], 150))
    const waiting = runner.run(broadcast(1, ['chain'], 2))
    await expect(runner.run(broadcast(1, ['chain'], 2))).rejects.toMatchObject({
      code: 'SIM_BUSY',
      statusCode: 503,
    })
    const pid = runner.pid()!
    const settled = Promise.all([
      expect(running).rejects.toMatchObject({ code: 'SIM_CLOSED' }),
      expect(waiting).rejects.toMatchObject({ code: 'SIM_CLOSED' }),
    ])
    await runner.close()
    await settled
    expect(alive(pid)).toBe(false)
  }, 60_000)
})
