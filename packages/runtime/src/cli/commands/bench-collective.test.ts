import { describe, expect, it } from 'vitest'
import type { CommandIo } from '../progress.ts'
import { busFactor, runBenchCollective } from './bench-collective.ts'
import { parseBytes } from './parse-options.ts'

describe('codebook bench collective', () => {
  it('measures every algorithm × worker count and derives algbw and busbw per nccl-tests', async () => {
    const out: string[] = []
    const io: CommandIo = { stdout: { write: (s: string) => out.push(s) }, stderr: process.stderr }
    const rows = await runBenchCollective(
      {
        op: 'broadcast',
        algorithms: ['simple', 'chain'],
        workers: [2, 3],
        bytes: parseBytes('256K'),
        repeats: 2,
        chunkBytes: 64 * 1024,
        json: true,
      },
      io,
    )
    expect(rows.map((r) => `${r.algorithm}/${r.workers}`)).toEqual([
      'simple/2',
      'chain/2',
      'simple/3',
      'chain/3',
    ])
    for (const r of rows) {
      expect(r.bytes).toBe(262_144)
      expect(r.algbw).toBeCloseTo(r.bytes / (r.ms / 1000) / 1e9, 9)
      expect(r.busbw).toBe(r.algbw)
    }
    expect(out.map((l) => JSON.parse(l))).toEqual(rows)
  })

  it('uses the nccl-tests bus-bandwidth factors and binary size units', () => {
    expect(busFactor('broadcast', 8)).toBe(1)
    expect(busFactor('all-reduce', 4)).toBe(1.5)
    expect(busFactor('all-gather', 4)).toBe(0.75)
    expect(parseBytes('64MB')).toBe(64 * 2 ** 20)
    expect(parseBytes('512k')).toBe(512 * 1024)
    expect(parseBytes('1000')).toBe(1000)
    expect(() => parseBytes('12 parsecs')).toThrow(/byte size/)
  })
})
