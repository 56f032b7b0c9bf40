import { legacyAggregationAliases, runAggregations } from '@codebook/shared'
import { CodebookError } from '../../errors.ts'
import { allGather } from '../all-gather.ts'
import { allReduceSum } from '../all-reduce.ts'
import { gather } from '../gather.ts'
import { blockBounds, type Group, groupIndex, recvFrom, sendTo } from '../group.ts'
import type { Combiner, EncodedBlock } from './combiner.ts'
import { ringReduceScatter } from './ring-reduce-scatter.ts'

/**
 * How map outputs reach the reducers (the names of the Map-Collective paper).
 * - `direct`: every map task sends each reducer its block (the papers' "20 TB" case).
 * - `three-stage`: the paper's 3-stage aggregation — (1) the tasks of a node are merged, (2)
 *   each node sends each reducer its block (group-by partition across nodes, an all-to-all):
 *   bytes shrink by about the tasks per node, (3) the reducers' blocks are gathered at the root.
 * - `ring`: local merge, then a ring reduce-scatter by key block (blocks are combined as
 *   they travel, so each node sends p − 1 blocks whatever p), then a gather at the root.
 * - `allreduce`: local merge, then a ring reduce-scatter and a ring all-gather, so every node
 *   ends with every key (no gather needed): the dense all-reduce of a float64 vector for a
 *   combiner with `elementwiseSum` (K-means), else by key block through the combiner's codec.
 * Every mode combines in group order for a non-commutative combiner (see {@link Combiner}).
 * Before 2026-11-25 `three-stage` named today's `ring` and `local` today's `three-stage`; stored
 * runs were migrated, and `local` is still read as `three-stage` ({@link parseAggregation}).
 */
export const aggregationModes = runAggregations
export type AggregationMode = (typeof aggregationModes)[number]

/** Old names still accepted on input, and what they mean now. */
export const legacyAggregations: Readonly<Record<string, AggregationMode>> = legacyAggregationAliases

/** An aggregation name as a user or an old record gives it: a mode, or a legacy alias of one. */
export function parseAggregation(name: string): AggregationMode {
  const mode = legacyAggregations[name] ?? name
  if (!(aggregationModes as readonly string[]).includes(mode))
    throw new CodebookError(
      'AGGREGATION_UNKNOWN',
      `unknown aggregation '${name}': use ${aggregationModes.join(', ')}`,
    )
  return mode as AggregationMode
}

/** Ops of one regroup: each stage has its own op id so its bytes are accounted separately. */
export interface RegroupOps {
  shuffle: number
  reduce: number
}

/** What a node holds after regroup, and how long its stages took. */
export interface RegroupResult<P> {
  /** Full-size partials; only keys [from, to) are complete (all keys for `allreduce`). */
  partials: P
  /** Keys of the whole partial. */
  keys: number
  from: number
  to: number
  shuffleMs: number
  reduceMs: number
  /** Blocks this node encoded and sent, by chosen form (a forwarded block is not counted again). */
  sparseMessages: number
  denseMessages: number
}

/**
 * Regroups the map outputs `tasks` (this node's map tasks, in task order) by key block across
 * the group and reduces them with `combiner`. `taskCounts[i]` is the number of map tasks of
 * group member i (needed by `direct`, where every task sends its own messages).
 */
export async function regroup<P>(
  g: Group,
  ops: RegroupOps,
  tasks: readonly P[],
  taskCounts: readonly number[],
  mode: AggregationMode,
  combiner: Combiner<P>,
  keys: number,
  now: () => number,
): Promise<RegroupResult<P>> {
  const p = g.ranks.length
  const me = groupIndex(g)
  const bounds = blockBounds(keys, p)
  const shuffle: Group = { ...g, op: ops.shuffle }
  const reduce: Group = { ...g, op: ops.reduce }
  let sparseMessages = 0
  let denseMessages = 0
  const count = (e: EncodedBlock) => (e.sparse ? sparseMessages++ : denseMessages++)
  if (!aggregationModes.includes(mode))
    throw new CodebookError('AGGREGATION_UNKNOWN', `unknown aggregation mode '${String(mode)}'`)
  const t0 = now()
  const result = (partials: P, from: number, to: number, t1: number): RegroupResult<P> => ({
    partials,
    keys,
    from,
    to,
    shuffleMs: t1 - t0,
    reduceMs: now() - t1,
    sparseMessages,
    denseMessages,
  })

  const mergeLocal = (): P => {
    const local = combiner.zero(keys)
    for (const t of tasks) combiner.combine(local, t)
    return local
  }

  if (p === 1) {
    // A group of one has nothing to shuffle or reduce: its merged tasks are the whole result
    // (every mode agrees; encoding and decoding 1 MB blocks to itself cost ~6 ms per iteration).
    return result(mergeLocal(), 0, keys, t0)
  }

  if (mode === 'direct' || mode === 'three-stage') {
    // Receivers expect taskCounts[i] messages from member i: a wrong count would hang them.
    if (mode === 'direct' && (taskCounts.length !== p || taskCounts[me] !== tasks.length))
      throw new CodebookError(
        'REGROUP_TASK_COUNTS',
        `member ${me} (rank ${g.plane.rank}) has ${tasks.length} map tasks; taskCounts [${taskCounts.join(', ')}] for ${p} members says ${taskCounts[me]}`,
      )
    const senders = mode === 'direct' ? tasks : [mergeLocal()]
    const sends: Promise<void>[] = []
    for (let j = 0; j < p; j++) {
      if (j === me) continue
      senders.forEach((part, step) => {
        const enc = combiner.encode(part, bounds[j]!, bounds[j + 1]!)
        count(enc)
        sends.push(sendTo(shuffle, j, step, enc.bytes))
      })
    }
    const recvs: Promise<Uint8Array[]>[] = []
    for (let i = 0; i < p; i++) {
      const messages = i === me ? 0 : mode === 'direct' ? taskCounts[i]! : 1
      recvs.push(Promise.all(Array.from({ length: messages }, (_, step) => recvFrom(shuffle, i, step))))
    }
    const [, received] = await Promise.all([Promise.all(sends), Promise.all(recvs)])
    const t1 = now()
    const own = combiner.zero(keys)
    // Group order for a non-commutative ⊕; a commutative one takes this node's own first, as
    // before combiners (so K-means adds in the same order, bit for bit).
    const members = Array.from({ length: p }, (_, i) => i)
    const order = combiner.commutative ? [me, ...members.filter((i) => i !== me)] : members
    for (const i of order) {
      if (i === me) for (const part of senders) combiner.combine(own, part)
      else for (const bytes of received[i]!) combiner.combineBlock(own, bytes, 'right')
    }
    return result(own, bounds[me]!, bounds[me + 1]!, t1)
  }

  const local = mergeLocal()
  const t1 = now()
  if (mode === 'allreduce' && combiner.elementwiseSum) {
    const { pack, unpack } = combiner.elementwiseSum
    const flat = await allReduceSum(reduce, pack(local))
    denseMessages += 2 * (p - 1)
    return result(unpack(flat, keys), 0, keys, t1)
  }
  const owned = await ringReduceScatter(reduce, local, combiner, bounds, count)
  if (mode === 'ring') return result(local, bounds[owned]!, bounds[owned + 1]!, t1)
  // allreduce through the codec: every member all-gathers the reduced blocks (steps after the
  // reduce-scatter's on the same op) and assembles them over zero; blocks are disjoint.
  const mine = combiner.encode(local, bounds[owned]!, bounds[owned + 1]!)
  count(mine)
  const blocks = await allGather(reduce, mine.bytes, ALL_GATHER_STEPS)
  const full = combiner.zero(keys)
  for (const b of blocks) combiner.combineBlock(full, b, 'right')
  return result(full, 0, keys, t1)
}

/** Step ids of the all-gather after a reduce-scatter on the same op (as `allReduceSum` does). */
const ALL_GATHER_STEPS = 0x8000

/**
 * Combine: gathers every node's reduced block at group member `root`, which resolves to the full
 * partials (others resolve to null). With `allreduce` every node already has everything, so no
 * bytes move. The blocks cover disjoint keys, so assembling them over zero needs no order.
 */
export async function combineAtRoot<P>(
  g: Group,
  root: number,
  r: RegroupResult<P>,
  mode: AggregationMode,
  combiner: Combiner<P>,
): Promise<P | null> {
  const me = groupIndex(g)
  // With allreduce every node has everything; a group of one holds everything too.
  if (mode === 'allreduce' || g.ranks.length === 1) return me === root ? r.partials : null
  const enc = combiner.encode(r.partials, r.from, r.to)
  const blocks = await gather(g, root, enc.bytes)
  if (!blocks) return null
  const full = combiner.zero(r.keys)
  for (const b of blocks) combiner.combineBlock(full, b, 'right')
  return full
}
