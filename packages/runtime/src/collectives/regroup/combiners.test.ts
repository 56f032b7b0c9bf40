import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnWorkerEntry } from '../../framework/spawn.ts'
import { WorkerPool } from '../../framework/worker-pool.ts'
import { createRng } from '../../random/rng.ts'
import type { Combiner } from './combiner.ts'
import { type AggregationMode, aggregationModes } from './regroup.ts'
import { type RegroupCheckResult, regroupCheckApplication } from './test-support/combiner-app.ts'
import {
  foldInOrder,
  randomMatrices,
  randomTask,
  type TestCombinerName,
  testCombinerNames,
  testCombiners,
} from './test-support/order-combiners.ts'

// Regroup and combine with user-defined combiners on 5 real worker processes (a test worker
// entry serving the `regroup-check` application), checked against the left-to-right fold over
// group members and, within a member, over its map tasks, computed in this process.
const WORKERS = 5
let pool: WorkerPool

beforeAll(async () => {
  pool = await WorkerPool.start({
    workers: WORKERS,
    spawn: spawnWorkerEntry(new URL('../../test-support/collective-check-worker.ts', import.meta.url)),
    chunkBytes: 256,
  })
})
afterAll(async () => {
  await pool?.close()
})

interface Case<P> {
  combiner: Combiner<P>
  name: TestCombinerName
  mode: AggregationMode
  /** Global ranks in group order. */
  ranks: number[]
  root: number
  keys: number
  /** Map-task partials of each group member, in task order. */
  tasks: P[][]
}

interface MemberOutcome<P> extends RegroupCheckResult {
  /** The member's reduced block (zero outside [from, to)). */
  block: P
  /** The full result, at the root (every member for allreduce). */
  result: P | null
}

function decode<P>(combiner: Combiner<P>, keys: number, bytes: Uint8Array): P {
  const p = combiner.zero(keys)
  combiner.combineBlock(p, bytes, 'right')
  return p
}

async function runCase<P>(c: Case<P>): Promise<MemberOutcome<P>[]> {
  const ops = { shuffle: pool.nextOpId(), reduce: pool.nextOpId(), combine: pool.nextOpId() }
  const taskCounts = c.tasks.map((t) => t.length)
  const replies = await Promise.all(
    c.ranks.map((rank, i) =>
      pool.call(
        rank,
        regroupCheckApplication,
        {
          type: 'regroup',
          combiner: c.name,
          mode: c.mode,
          ranks: c.ranks,
          root: c.root,
          ops,
          keys: c.keys,
          taskCounts,
        },
        c.tasks[i]!.map((t) => c.combiner.encode(t, 0, c.keys).bytes),
      ),
    ),
  )
  return replies.map((m) => {
    const r = m.result as RegroupCheckResult
    return {
      ...r,
      block: decode(c.combiner, c.keys, m.blobs[0]!),
      result: r.full ? decode(c.combiner, c.keys, m.blobs[1]!) : null,
    }
  })
}

/** Every member's block, the blocks' cover of all keys, and the full results equal the fold. */
async function expectFold<P>(c: Case<P>, label: string): Promise<MemberOutcome<P>[]> {
  const expected = foldInOrder(c.combiner, c.keys, c.tasks.flat())
  const out = await runCase(c)
  const p = c.ranks.length
  out.forEach((o, i) => {
    const only = decode(c.combiner, c.keys, c.combiner.encode(expected, o.from, o.to).bytes)
    expect(o.block, `${label}: member ${i}'s block [${o.from}, ${o.to})`).toEqual(only)
    const holds = c.mode === 'allreduce' || i === c.root
    expect(o.full, `${label}: member ${i} holds the result`).toBe(holds)
    if (holds) expect(o.result, `${label}: member ${i}'s result`).toEqual(expected)
  })
  if (c.mode !== 'allreduce' || p === 1) {
    // Each member reduced one block; together the blocks cover the keys once.
    let at = 0
    for (const o of [...out].sort((a, b) => a.from - b.from || a.to - b.to)) {
      expect(o.from, `${label}: blocks cover the keys once`).toBe(at)
      at = o.to
    }
    expect(at, `${label}: blocks cover the keys`).toBe(c.keys)
  }
  return out
}

/** Ranks of a group of p in a scrambled order, so group order is not rank order. */
function scrambled(p: number): number[] {
  return Array.from({ length: p }, (_, i) => (i * 3 + 1) % WORKERS).slice(0, p)
}

const concatTask = (member: number, task: number, keys: number) =>
  Array.from({ length: keys }, (_, k) => `m${member}t${task}k${k};`)

describe('non-commutative combiners come out in group order through every aggregation', () => {
  for (const mode of aggregationModes) {
    it(`${mode}: string concatenation and 2 × 2 matrix products over 1, 2, 3 and 5 members`, async () => {
      const rng = createRng(17)
      for (const p of [1, 2, 3, 5]) {
        const ranks = scrambled(p)
        // 7 keys: uneven blocks, and one-key blocks at p = 5; 1 to 3 map tasks per member.
        const keys = 7
        const tasksOf = (i: number) => (i % 3) + 1
        const root = p - 1 - (p >> 1)
        const concat = ranks.map((_, i) =>
          Array.from({ length: tasksOf(i) }, (_, t) => concatTask(i, t, keys)),
        )
        await expectFold(
          { combiner: testCombiners.concat, name: 'concat', mode, ranks, root, keys, tasks: concat },
          `concat p=${p}`,
        )
        const matrices = ranks.map((_, i) =>
          Array.from({ length: tasksOf(i) }, () => randomMatrices(rng, keys)),
        )
        await expectFold(
          {
            combiner: testCombiners['matrix-product'],
            name: 'matrix-product',
            mode,
            ranks,
            root,
            keys,
            tasks: matrices,
          },
          `matrix-product p=${p}`,
        )
      }
    })
  }
})

describe('every mode equals the sequential fold on random inputs', () => {
  it('120 seeded cases: combiner, mode, group, root, keys (also fewer than members) and tasks per member (also none)', async () => {
    const rng = createRng(2026)
    for (let n = 0; n < 120; n++) {
      const name = testCombinerNames[rng.int(testCombinerNames.length)]!
      const mode = aggregationModes[rng.int(aggregationModes.length)]!
      const p = 1 + rng.int(WORKERS)
      const ranks = Array.from({ length: WORKERS }, (_, r) => r)
      for (let i = ranks.length - 1; i > 0; i--) {
        const j = rng.int(i + 1)
        ;[ranks[i], ranks[j]] = [ranks[j]!, ranks[i]!]
      }
      const keys = rng.int(13)
      const tasks = Array.from({ length: p }, (_, i) =>
        Array.from({ length: rng.int(4) }, (_, t) => randomTask(name, rng, keys, i, t)),
      )
      const c = {
        combiner: testCombiners[name] as Combiner<unknown>,
        name,
        mode,
        ranks: ranks.slice(0, p),
        root: rng.int(p),
        keys,
        tasks,
      }
      await expectFold(c, `case ${n}: ${name}/${mode} p=${p} keys=${keys} ranks=${c.ranks} root=${c.root}`)
    }
  })
})

describe('bytes of the order-keeping ring', () => {
  it('each message carries its low segment and, after the wrap, the high one: exactly as computed from the data', async () => {
    const p = 4
    const keys = 9
    const ranks = [3, 0, 2, 1]
    const root = 1
    const tasks = ranks.map((_, i) => [concatTask(i, 0, keys)])
    const out = await expectFold(
      { combiner: testCombiners.concat, name: 'concat', mode: 'ring', ranks, root, keys, tasks },
      'ring bytes',
    )
    // Independent expectation: the concat block of members [lo, hi] over block b, and the framing.
    const bounds = Array.from({ length: p + 1 }, (_, j) => Math.floor((j * keys) / p))
    const utf8 = (s: string) => new TextEncoder().encode(s).length
    const blockBytes = (b: number, lo: number, hi: number) => {
      let n = 8
      for (let k = bounds[b]!; k < bounds[b + 1]!; k++)
        for (let m = lo; m <= hi; m++) n += (m === lo ? 4 : 0) + utf8(tasks[m]![0]![k]!)
      return n
    }
    const pad8 = (n: number) => Math.ceil(n / 8) * 8
    for (let me = 0; me < p; me++) {
      let expected = 0
      for (let s = 0; s < p - 1; s++) {
        const b = (me - s + p) % p
        // Before the wrap one segment covers members b … me; after it, 0 … me and b … p − 1.
        expected +=
          8 + (b <= me ? pad8(blockBytes(b, b, me)) : pad8(blockBytes(b, 0, me)) + blockBytes(b, b, p - 1))
      }
      if (me !== root) expected += blockBytes((me + 1) % p, 0, p - 1)
      expect(out[me]!.bytesSent, `member ${me}`).toBe(expected)
    }
  })
})

describe('bad input', () => {
  it('direct: a member whose map tasks disagree with taskCounts fails with a coded error before sending', async () => {
    const ops = { shuffle: pool.nextOpId(), reduce: pool.nextOpId(), combine: pool.nextOpId() }
    const blob = testCombiners.concat.encode(concatTask(0, 0, 3), 0, 3).bytes
    await expect(
      pool.call(
        2,
        regroupCheckApplication,
        {
          type: 'regroup',
          combiner: 'concat',
          mode: 'direct',
          ranks: [2, 4],
          root: 0,
          ops,
          keys: 3,
          taskCounts: [2, 1],
        },
        [blob],
      ),
    ).rejects.toMatchObject({
      code: 'REGROUP_TASK_COUNTS',
      message: expect.stringContaining('member 0 (rank 2) has 1 map tasks'),
    })
  })
})
