import { type IterationReport, stageNames } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { criticalWorkers, iterationMs } from './run-events.ts'

function stage(ms: number) {
  return { ms, bytes: ms * 10, intraRackBytes: ms * 10, crossRackBytes: 0 }
}

function workerStage(ms: number) {
  return { ms, bytesSent: 1, bytesReceived: 1, intraRackBytes: 1, crossRackBytes: 0 }
}

// One report whose five stages take `stageMs` each; workers' map times given per rank.
function report(iteration: number, stageMs: number, workerMapMs: number[] = [1]): IterationReport {
  const stages = Object.fromEntries(stageNames.map((s) => [s, stage(stageMs)])) as IterationReport['stages']
  return {
    iteration,
    stages,
    inertia: 100 / iteration,
    reassigned: 0,
    emptyClustersSplit: 0,
    encoding: { sparseMessages: 0, denseMessages: 0 },
    restarts: 0,
    workers: workerMapMs.map((m, rank) => ({
      rank,
      rack: 'rack-0',
      points: 10,
      inertia: 1,
      reassigned: 0,
      stages: Object.fromEntries(
        stageNames.map((s) => [s, workerStage(s === 'map' ? m : rank)]),
      ) as IterationReport['workers'][number]['stages'],
    })),
  }
}

describe('criticalWorkers', () => {
  it('names the slowest worker of each stage, lowest rank on ties', () => {
    const critical = criticalWorkers(report(1, 1, [5, 9, 9, 2]))
    expect(critical.map).toBe(1)
    // Other stages take `rank` ms at each worker: the highest rank is slowest.
    expect(critical.broadcast).toBe(3)
    expect(criticalWorkers(report(1, 1, [])).map).toBeNull()
  })
})

describe('iterationMs', () => {
  it('sums the five stage times', () => {
    expect(iterationMs(report(1, 2.5))).toBe(12.5)
  })
})
