import { describe, expect, it } from 'vitest'
import { criticalWorkers, iterationMs } from './run-events.ts'
import { syntheticReport } from './test-support/synthetic-report.ts'

// Stages other than map take `rank` ms at each worker, so the highest rank is their critical path.
const report = (iteration: number, stageMs: number, workerMapMs?: number[]) =>
  syntheticReport(iteration, stageMs, workerMapMs, (rank) => rank)

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
