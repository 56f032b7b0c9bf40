import { type IterationReport, type RunEvent, stageNames } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import {
  criticalWorkers,
  emptyRunEventState,
  etaSeconds,
  mergeRunEvents,
  toStageSeries,
} from './run-events.ts'

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

function iterationEvent(seq: number, iteration: number): RunEvent {
  return { seq, type: 'iteration', data: report(iteration, 1) }
}

describe('mergeRunEvents', () => {
  it('appends iteration reports in seq order and tracks the last seq', () => {
    const state = mergeRunEvents(emptyRunEventState, [
      iterationEvent(3, 2),
      { seq: 1, type: 'state', data: {} },
      iterationEvent(2, 1),
    ])
    expect(state.lastSeq).toBe(3)
    expect(state.iterations.map((r) => r.iteration)).toEqual([1, 2])
  })

  it('drops events already applied, across batches and within one (a replayed backlog)', () => {
    const first = mergeRunEvents(emptyRunEventState, [iterationEvent(1, 1), iterationEvent(2, 2)])
    const second = mergeRunEvents(first, [
      iterationEvent(2, 2),
      iterationEvent(3, 3),
      iterationEvent(3, 3),
      iterationEvent(1, 1),
    ])
    expect(second.iterations.map((r) => r.iteration)).toEqual([1, 2, 3])
    expect(second.lastSeq).toBe(3)
    // Nothing new: the very same object comes back, so React skips the render.
    expect(mergeRunEvents(second, [iterationEvent(2, 2)])).toBe(second)
  })

  it('advances past a malformed iteration event without keeping it', () => {
    const state = mergeRunEvents(emptyRunEventState, [{ seq: 1, type: 'iteration', data: { nope: 1 } }])
    expect(state).toEqual({ lastSeq: 1, iterations: [] })
  })
})

describe('etaSeconds', () => {
  it('is null before the first iteration', () => {
    expect(etaSeconds([], 10)).toBeNull()
  })

  it('multiplies the remaining iterations by the mean iteration time', () => {
    // Iterations of 5 × 100 ms = 0.5 s and 5 × 300 ms = 1.5 s: mean 1 s; 8 of 10 left → 8 s.
    expect(etaSeconds([report(1, 100), report(2, 300)], 10)).toBeCloseTo(8, 10)
    expect(etaSeconds([report(1, 100), report(2, 300)], 2)).toBe(0)
  })
})

describe('criticalWorkers', () => {
  it('names the slowest worker of each stage, lowest rank on ties', () => {
    const critical = criticalWorkers(report(1, 1, [5, 9, 9, 2]))
    expect(critical.map).toBe(1)
    // Other stages take `rank` ms at each worker: the highest rank is slowest.
    expect(critical.broadcast).toBe(3)
    expect(criticalWorkers(report(1, 1, [])).map).toBeNull()
  })
})

describe('toStageSeries', () => {
  it('turns reports into per-stage columns', () => {
    const series = toStageSeries([report(1, 2), { ...report(2, 3), distanceFraction: 0.5 }])
    expect(series.iterations).toEqual([1, 2])
    expect(series.ms.shuffle).toEqual([2, 3])
    expect(series.bytes.reduce).toEqual([20, 30])
    expect(series.inertia).toEqual([100, 50])
    expect(series.distanceFraction).toEqual([null, 0.5])
    expect(series.hasDistanceFraction).toBe(true)
  })
})
