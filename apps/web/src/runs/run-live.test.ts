import { type JobEvent, stageNames } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { criticalWorkers } from './run-events.ts'
import { criticalRanks, GrowableColumn, progressView, RunLive } from './run-live.ts'
import { syntheticReport } from './test-support/synthetic-report.ts'

const report = (iteration: number, stageMs: number, workerMapMs?: number[]) =>
  syntheticReport(iteration, stageMs, workerMapMs)

function iterationEvent(seq: number, iteration: number, stageMs = 1, workerMapMs?: number[]): JobEvent {
  return { seq, type: 'iteration', data: report(iteration, stageMs, workerMapMs) }
}

describe('GrowableColumn', () => {
  it('keeps every pushed value in order across growths, and views only the filled prefix', () => {
    const c = new GrowableColumn(2)
    const expected: number[] = []
    for (let i = 0; i < 1000; i++) {
      const v = (i * 7919) % 1013
      c.push(v)
      expected.push(v)
    }
    expect(c.length).toBe(1000)
    expect(Array.from(c.view())).toEqual(expected)
    expect(c.toArray()).toEqual(expected)
    expect(c.at(999)).toBe(expected[999])
    expect(c.at(1000)).toBeUndefined()
    expect(c.at(-1)).toBeUndefined()
  })
})

describe('RunLive.apply', () => {
  it('appends iteration columns in seq order and tracks the last seq', () => {
    const live = new RunLive()
    expect(
      live.apply([iterationEvent(3, 2, 3), { seq: 1, type: 'state', data: {} }, iterationEvent(2, 1, 2)]),
    ).toBe(true)
    expect(live.lastSeq).toBe(3)
    expect(live.iteration.toArray()).toEqual([1, 2])
    expect(live.ms.shuffle.toArray()).toEqual([2, 3])
    expect(live.bytes.reduce.toArray()).toEqual([20, 30])
    expect(live.totalMs.toArray()).toEqual([10, 15])
    expect(live.inertia.toArray()).toEqual([100, 50])
    expect(live.meanIterationMs).toBe(12.5)
    expect(live.lastReport?.iteration).toBe(2)
  })

  it('drops events already applied, across batches and within one (a replayed backlog)', () => {
    const live = new RunLive()
    live.apply([iterationEvent(1, 1), iterationEvent(2, 2)])
    const version = live.version
    live.apply([iterationEvent(2, 2), iterationEvent(3, 3), iterationEvent(3, 3), iterationEvent(1, 1)])
    expect(live.iteration.toArray()).toEqual([1, 2, 3])
    expect(live.lastSeq).toBe(3)
    expect(live.version).toBe(version + 1)
    // Nothing new: no change, no new version (React skips the render).
    expect(live.apply([iterationEvent(2, 2)])).toBe(false)
    expect(live.version).toBe(version + 1)
  })

  it('advances past malformed payloads without keeping them', () => {
    const live = new RunLive()
    live.apply([
      { seq: 1, type: 'iteration', data: { nope: 1 } },
      { seq: 2, type: 'log', data: { level: 'loud', message: 'x' } },
      { seq: 3, type: 'progress', data: { phase: 'iterating', fraction: 2 } },
    ])
    expect(live.lastSeq).toBe(3)
    expect(live.count).toBe(0)
    expect(live.logs).toEqual([])
    expect(live.progress).toBeNull()
  })

  it('keeps log lines with their seq, the last progress, and the critical worker per stage', () => {
    const live = new RunLive()
    live.apply([
      { seq: 1, type: 'log', data: { level: 'info', message: 'loading' } },
      { seq: 2, type: 'progress', data: { phase: 'loading', fraction: 0.5 } },
      iterationEvent(3, 1, 1, [5, 9, 9, 2]),
      { seq: 4, type: 'log', data: { level: 'warn', message: 'worker 2 slow' } },
      { seq: 5, type: 'progress', data: { phase: 'iterating', fraction: 0.1, etaSeconds: 9 } },
    ])
    expect(live.logs).toEqual([
      { seq: 1, level: 'info', message: 'loading' },
      { seq: 4, level: 'warn', message: 'worker 2 slow' },
    ])
    expect(live.progress).toEqual({ phase: 'iterating', fraction: 0.1, etaSeconds: 9 })
    // Ties go to the lowest rank; a stage where every worker reports 0 ms still names rank 0.
    expect(live.critical.map.toArray()).toEqual([1])
    expect(live.critical.broadcast.toArray()).toEqual([0])
  })

  it('marks missing distance fractions NaN and notes when any iteration has one', () => {
    const live = new RunLive()
    live.apply([
      iterationEvent(1, 1),
      { seq: 2, type: 'iteration', data: { ...report(2, 1), distanceFraction: 0.5 } },
    ])
    expect(live.hasDistanceFraction).toBe(true)
    const f = live.distanceFraction.toArray()
    expect(Number.isNaN(f[0])).toBe(true)
    expect(f[1]).toBe(0.5)
  })
})

describe('progressView', () => {
  it('uses the last progress event when there is one', () => {
    const live = new RunLive()
    live.apply([{ seq: 1, type: 'progress', data: { phase: 'init', fraction: 0.25, message: 'k-means++' } }])
    expect(progressView(live, 0, 10)).toEqual({
      phase: 'init',
      fraction: 0.25,
      etaSeconds: null,
      message: 'k-means++',
    })
  })

  it('falls back to iterations done ÷ max and the mean iteration time', () => {
    const live = new RunLive()
    expect(progressView(live, 0, 10)).toEqual({ phase: null, fraction: 0, etaSeconds: null, message: null })
    // Iterations of 5 × 100 ms = 0.5 s and 5 × 300 ms = 1.5 s: mean 1 s; 8 of 10 left → 8 s.
    live.apply([iterationEvent(1, 1, 100), iterationEvent(2, 2, 300)])
    const v = progressView(live, 2, 10)
    expect(v.fraction).toBeCloseTo(0.2, 12)
    expect(v.etaSeconds).toBeCloseTo(8, 10)
  })
})

describe('criticalRanks', () => {
  it('agrees with criticalWorkers (over validated reports) on seeded random reports', () => {
    let seed = 12345
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    for (let t = 0; t < 200; t++) {
      // Few distinct values so ties happen often.
      const r = report(
        1,
        1,
        Array.from({ length: 1 + Math.floor(next() * 9) }, () => Math.floor(next() * 4)),
      )
      for (const w of r.workers) for (const s of stageNames) w.stages[s].ms = Math.floor(next() * 3)
      const expected = criticalWorkers(r)
      const got = criticalRanks(r.workers)
      for (const s of stageNames) expect(got[s]).toBe(expected[s] ?? -1)
    }
  })

  it('ignores malformed worker entries', () => {
    const got = criticalRanks([null, { rank: 'x' }, { rank: 3, stages: { map: { ms: 2 } } }])
    expect(got.map).toBe(3)
    expect(got.reduce).toBe(-1)
    expect(criticalRanks('nope').map).toBe(-1)
  })
})

describe('RunLive.lastReport', () => {
  it('is the last iteration validated whole; a report with bad workers keeps its columns but no table', () => {
    const live = new RunLive()
    live.apply([iterationEvent(1, 1, 1, [4, 7])])
    expect(live.lastReport?.workers.map((w) => w.rank)).toEqual([0, 1])
    const bad = { ...report(2, 1), workers: [{ rank: 0 }] }
    live.apply([{ seq: 2, type: 'iteration', data: bad }])
    expect(live.count).toBe(2)
    expect(live.lastReport).toBeNull()
  })
})
