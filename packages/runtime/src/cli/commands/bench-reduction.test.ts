import { describe, expect, it } from 'vitest'
import { main } from '../main.ts'
import type { CommandIo } from '../progress.ts'
import { runBenchReduction } from './bench-reduction.ts'

describe('codebook bench reduction', () => {
  it('times the four reductions on real workers with injected delays, beside the study for the same draws', async () => {
    const out: string[] = []
    const io: CommandIo = { stdout: { write: (s: string) => out.push(s) }, stderr: process.stderr }
    // CV 0: every transfer takes exactly 15 ms and ⊕ is free, so Binomial-stat's makespan on 4
    // workers is its 2 rounds (closed form), and a static tree can only be slower for real.
    const rows = await runBenchReduction(
      {
        workers: 4,
        bytes: 1024,
        jitterCv: 0,
        linkMs: 15,
        computeMs: 0,
        runs: 1,
        seed: 3,
        algorithms: ['binomial', 'fibonacci', 'tree-dyn', 'noncommut-tree-dyn'],
        json: true,
      },
      io,
    )
    expect(rows.map((r) => r.algorithm)).toEqual(['binomial', 'fibonacci', 'tree-dyn', 'noncommut-tree-dyn'])
    expect(out.map((l) => JSON.parse(l))).toEqual(rows)
    expect(rows[0]!.predictedMs).toBe(2 * 15)
    for (const r of rows) {
      expect(r.bytes).toBe(1024)
      expect(r.measuredRunsMs).toHaveLength(1)
      // Sleeps bound the real time from below (timers may fire up to 1 ms early); a hung tree
      // would fail the run instead.
      if (r.algorithm === 'binomial' || r.algorithm === 'fibonacci')
        expect(r.measuredMs, r.algorithm).toBeGreaterThanOrEqual(r.predictedMs - 2)
      // Every tree needs at least ⌈log₂ 4⌉ transfers one after another.
      expect(r.measuredMs, r.algorithm).toBeGreaterThanOrEqual(2 * 15 - 2)
    }
  }, 60_000)

  it('refuses a negative CV as bad input (exit 2)', async () => {
    const err: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
    try {
      expect(await main(['bench', 'reduction', '--jitter-cv', '-1'])).toBe(2)
    } finally {
      process.stderr.write = write
    }
    expect(err.join('')).toContain('--jitter-cv')
  })
})
