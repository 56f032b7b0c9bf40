import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnWorkerEntry } from '../../framework/spawn.ts'
import { WorkerPool } from '../../framework/worker-pool.ts'
import { createRng, type Rng } from '../../random/rng.ts'
import type { Combiner } from '../regroup/combiner.ts'
import {
  foldInOrder,
  randomTask,
  type TestCombinerName,
  testCombiners,
} from '../regroup/test-support/order-combiners.ts'
import { nonCommutTreeDynPairing, treeDynPairing } from './pairing.ts'
import { type TreeReduction, treeReductions } from './reduce.ts'
import type { ReduceCheckResult } from './reduce-app.ts'
import { reductionCheckApplication } from './test-support.ts'

// The four reductions on 1–9 real worker processes (the regroup tests' worker entry, serving
// `reduce-check`), against the left-to-right fold of every member's values computed here:
// bit for bit for integer cluster sums, in group order for the non-commutative combiners.
const WORKERS = 9
let pool: WorkerPool

beforeAll(async () => {
  pool = await WorkerPool.start({
    workers: WORKERS,
    spawn: spawnWorkerEntry(new URL('../../test-support/collective-check-worker.ts', import.meta.url)),
    chunkBytes: 256,
  })
}, 60_000)
afterAll(async () => {
  await pool?.close()
})

interface Case {
  name: TestCombinerName
  algorithm: TreeReduction
  ranks: number[]
  root: number
  keys: number
  tasks: unknown[][]
  delays?: { computeMs: number[]; linkMs: number[][] }
}

async function run(c: Case): Promise<{ out: ReduceCheckResult[]; result: unknown }> {
  const combiner = testCombiners[c.name] as Combiner<unknown>
  const ops = { sync: pool.nextOpId(), reduce: pool.nextOpId(), combine: pool.nextOpId() }
  const replies = await Promise.all(
    c.ranks.map((rank, i) =>
      pool.call(
        rank,
        reductionCheckApplication,
        {
          type: 'reduce',
          combiner: c.name,
          algorithm: c.algorithm,
          ranks: c.ranks,
          root: c.root,
          ops,
          keys: c.keys,
          delays: c.delays,
          timeoutMs: 20_000,
        },
        c.tasks[i]!.map((t) => combiner.encode(t, 0, c.keys).bytes),
      ),
    ),
  )
  const out = replies.map((r) => r.result as ReduceCheckResult)
  const root = replies[c.root]!
  const result = combiner.zero(c.keys)
  combiner.combineBlock(result, root.blobs[0]!, 'right')
  return { out, result }
}

/** A random order of all workers' ranks, of which a group takes the first p (group order ≠ rank order). */
function shuffledRanks(rng: Rng): number[] {
  const ranks = Array.from({ length: WORKERS }, (_, r) => r)
  for (let i = ranks.length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[ranks[i], ranks[j]] = [ranks[j]!, ranks[i]!]
  }
  return ranks
}

describe('the four reductions give the fold of every value on 1–9 workers', () => {
  for (const algorithm of treeReductions) {
    it(`${algorithm}`, async () => {
      const rng = createRng(20 + treeReductions.indexOf(algorithm))
      const names: TestCombinerName[] =
        algorithm === 'tree-dyn' ? ['cluster-sums'] : ['cluster-sums', 'concat', 'matrix-product']
      const dynamic = algorithm.includes('dyn')
      for (let p = 1; p <= WORKERS; p++) {
        for (const name of names) {
          // Dynamic trees pair by readiness: seeded compute delays of 0–4 ms per member vary who
          // pairs with whom from case to case.
          const delays = dynamic
            ? {
                computeMs: Array.from({ length: p }, () => rng.int(5)),
                linkMs: Array.from({ length: p }, () => Array.from({ length: p }, () => rng.int(3))),
              }
            : undefined
          const ranks = shuffledRanks(rng).slice(0, p)
          const keys = 1 + rng.int(6)
          const tasks = ranks.map((_, i) =>
            Array.from({ length: rng.int(3) }, (_, t) => randomTask(name, rng, keys, i, t)),
          )
          const c: Case = { name, algorithm, ranks, root: rng.int(p), keys, tasks, delays }
          const label = `${algorithm} ${name} p=${p} root=${c.root}`
          const combiner = testCombiners[name] as Combiner<unknown>
          const expected = foldInOrder(combiner, keys, tasks.flat())
          const { out, result } = await run(c)
          expect(result, label).toEqual(expected)
          for (const [i, o] of out.entries())
            expect(o.full, `${label}: member ${i} holds the result`).toBe(i === c.root)
          const holder = out[c.root]!.holder!
          // The static plans end at rank 0; the result moves to the root only if that differs.
          if (!dynamic) expect(holder, label).toBe(0)
        }
      }
    }, 60_000)
  }

  it('tree-dyn refuses a non-commutative combiner with a coded error', async () => {
    await expect(
      run({ name: 'concat', algorithm: 'tree-dyn', ranks: [4], root: 0, keys: 1, tasks: [[['a']]] }),
    ).rejects.toMatchObject({ code: 'REDUCE_NEEDS_COMMUTATIVE' })
  })
})

describe('dynamic pairing, worked by hand', () => {
  it('tree-dyn: the member that becomes ready sends to the one waiting; one slot', () => {
    const t = treeDynPairing()
    expect(t.ready(2)).toBeNull()
    expect(t.ready(0)).toEqual({ sender: 0, receiver: 2, side: 'right' })
    expect(t.ready(1)).toBeNull()
    expect(t.ready(3)).toEqual({ sender: 3, receiver: 1, side: 'right' })
    // 2 (now holding 0 and 2) and 1 (holding 1 and 3) pair when both are ready again.
    expect(t.ready(1)).toBeNull()
    expect(t.ready(2)).toEqual({ sender: 2, receiver: 1, side: 'right' })
  })

  it('noncommut-tree-dyn: only adjacent rank intervals pair; with both neighbours ready, the longer-waiting one', () => {
    const t = nonCommutTreeDynPairing(5)
    expect(t.ready(0)).toBeNull()
    expect(t.ready(2)).toBeNull() // 0 is ready but not next to 2
    expect(t.ready(4)).toBeNull()
    // 1 sits between 0 (ready first) and 2: it sends to 0, on 0's right.
    expect(t.ready(1)).toEqual({ sender: 1, receiver: 0, side: 'right' })
    // 3 sits between 2 and 4; 2 has waited longer: 3 goes on 2's right.
    expect(t.ready(3)).toEqual({ sender: 3, receiver: 2, side: 'right' })
    // 2 (ranks 2–3) is ready again; of its neighbours 0 is busy combining and 4 waits.
    expect(t.ready(2)).toEqual({ sender: 2, receiver: 4, side: 'left' })
    expect(t.ready(0)).toBeNull()
    expect(t.ready(4)).toEqual({ sender: 4, receiver: 0, side: 'right' })
  })
})
