import { z } from 'zod'
import { defineApplication } from '../../../framework/application.ts'
import type { Group } from '../../group.ts'
import type { Combiner } from '../combiner.ts'
import { aggregationModes, combineAtRoot, regroup } from '../regroup.ts'
import { testCombinerNames, testCombiners } from './order-combiners.ts'

const count = z.number().int().nonnegative()

/**
 * A test-only application: runs one regroup + combine of the map-task partials it is sent (one
 * blob each, the combiner's encoding of all keys) with a named test combiner, and answers with
 * the block this member reduced and, at the root (every member for `allreduce`), the full result.
 */
export const RegroupCheckMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('regroup'),
    combiner: z.enum(testCombinerNames),
    mode: z.enum(aggregationModes),
    /** Global ranks of the participants, in group order. */
    ranks: z.array(count).min(1),
    /** The root of the combine stage, a group index. */
    root: count,
    ops: z.object({ shuffle: count, reduce: count, combine: count }),
    keys: count.max(100_000),
    taskCounts: z.array(count),
  }),
])
export type RegroupCheckMessage = z.infer<typeof RegroupCheckMessage>

/** What a member answers (blobs: its reduced block, then the full result if it holds one). */
export interface RegroupCheckResult {
  from: number
  to: number
  full: boolean
  bytesSent: number
}

async function run<P>(
  combiner: Combiner<P>,
  m: RegroupCheckMessage,
  blobs: Uint8Array[],
  plane: Group['plane'],
  now: () => number,
) {
  const tasks = blobs.map((b) => {
    const t = combiner.zero(m.keys)
    combiner.combineBlock(t, b, 'right')
    return t
  })
  const g = (op: number): Group => ({ plane, ranks: m.ranks, op, timeoutMs: 30_000 })
  const r = await regroup(g(m.ops.shuffle), m.ops, tasks, m.taskCounts, m.mode, combiner, m.keys, now)
  const full = await combineAtRoot(g(m.ops.combine), m.root, r, m.mode, combiner)
  const held = m.mode === 'allreduce' ? r.partials : full
  const bytesSent = [m.ops.shuffle, m.ops.reduce, m.ops.combine].reduce(
    (s, op) => s + plane.counters.takeOp(op).sent,
    0,
  )
  const result: RegroupCheckResult = { from: r.from, to: r.to, full: held !== null, bytesSent }
  const out = [combiner.encode(r.partials, r.from, r.to).bytes]
  if (held !== null) out.push(combiner.encode(held, 0, m.keys).bytes)
  return { result, blobs: out }
}

export const regroupCheckApplication = defineApplication({
  name: 'regroup-check',
  messages: RegroupCheckMessage,
  createState: () => null,
  handle: (_state, m, blobs, ctx) =>
    run(testCombiners[m.combiner] as Combiner<unknown>, m, blobs, ctx.plane, ctx.now),
})
