import { describe, expect, it } from 'vitest'
import { blockRange, broadcastSchedule, chunkSizes } from './broadcast-schedule.ts'

const algorithms = ['simple', 'mst', 'bucket', 'chain'] as const

/**
 * Replays a schedule in dependency order and checks it against the meaning of a broadcast:
 * a rank only sends bytes it holds, and in the end every rank holds every byte exactly once.
 */
function replay(order: number[], bytes: number, chunkBytes: number, algorithm: (typeof algorithms)[number]) {
  const sends = broadcastSchedule(algorithm, order, bytes, chunkBytes)
  const p = order.length
  // Pieces as byte ranges: chunks of the whole message, or chunks of a block (bucket).
  const held = new Map<number, Set<string>>(order.map((r) => [r, new Set<string>()]))
  const rootRanges: string[] = []
  if (algorithm === 'bucket') {
    for (let b = 0; b < p; b++) {
      const [s, e] = blockRange(bytes, p, b)
      rootRanges.push(`${s}-${e}`)
    }
  } else rootRanges.push(`0-${bytes}`)
  const done = new Set<number>()
  const received = new Map<number, number>(order.map((r) => [r, 0]))
  let progressed = true
  while (done.size < sends.length && progressed) {
    progressed = false
    sends.forEach((s, i) => {
      if (done.has(i) || !s.after.every((a) => done.has(a))) return
      const key = algorithm === 'bucket' ? `block${s.piece}` : `chunk${s.piece}`
      if (s.from !== order[0])
        expect(held.get(s.from)!.has(key), `rank ${s.from} forwards ${key} it lacks`).toBe(true)
      if (!held.get(s.to)!.has(key) || algorithm === 'bucket')
        received.set(s.to, received.get(s.to)! + s.bytes)
      held.get(s.to)!.add(key)
      done.add(i)
      progressed = true
    })
  }
  expect(done.size, 'schedule has a dependency cycle').toBe(sends.length)
  const pieces = algorithm === 'bucket' ? p : chunkSizes(bytes, chunkBytes).length
  for (const r of order.slice(1)) {
    expect(received.get(r), `rank ${r} bytes`).toBe(bytes)
    // Bucket: every block except the rank's own arrives by the ring (its own came by the scatter).
    expect(held.get(r)!.size).toBe(pieces)
  }
}

describe('broadcastSchedule', () => {
  for (const algorithm of algorithms)
    for (const p of [1, 2, 3, 5, 8])
      for (const bytes of [0, 1, 1000, 4096 * 3 + 17])
        it(`${algorithm}: p=${p}, ${bytes} bytes reach every rank exactly once`, () => {
          // Ranks in a scrambled order, so the schedule cannot rely on order[i] = i.
          const order = Array.from({ length: p }, (_, i) => (i * 7 + 3) % p) // 7 is coprime with every p tested
          replay(order, bytes, 4096, algorithm)
        })

  it('root traffic: simple sends (p − 1)·n, chain sends n', () => {
    const order = [0, 1, 2, 3, 4]
    const rootBytes = (a: (typeof algorithms)[number]) =>
      broadcastSchedule(a, order, 10_000, 1000)
        .filter((s) => s.from === 0)
        .reduce((t, s) => t + s.bytes, 0)
    expect(rootBytes('simple')).toBe(4 * 10_000)
    expect(rootBytes('chain')).toBe(10_000)
  })
})
