import { CodebookError } from '../../errors.ts'
import { allReduceSum } from '../all-reduce.ts'
import { gather } from '../gather.ts'
import { blockBounds, type Group, groupIndex, recvFrom, sendTo } from '../group.ts'
import { addPartials, createPartials, encodeBlock, mergeBlock, type Partials } from './partials.ts'

/**
 * How map outputs reach the reducers (the names of the Map-Collective paper).
 * - `direct`: every map task sends each reducer its block (the papers' "20 TB" case).
 * - `three-stage`: the paper's 3-stage aggregation — (1) the tasks of a node are merged, (2)
 *   each node sends each reducer its block (group-by partition across nodes, an all-to-all):
 *   bytes shrink by about the tasks per node, (3) the reducers' blocks are gathered at the root.
 * - `ring`: local merge, then a ring reduce-scatter by centroid block (blocks are summed as
 *   they travel, so each node sends p − 1 blocks whatever p), then a gather at the root.
 * - `allreduce`: local merge, then a ring all-reduce of the dense partials, so every node ends
 *   with every new centroid (no gather needed).
 * Before 2026-11-25 `three-stage` named today's `ring` and `local` today's `three-stage`; stored
 * runs were migrated, and `local` is still read as `three-stage` ({@link parseAggregation}).
 */
export const aggregationModes = ['direct', 'three-stage', 'ring', 'allreduce'] as const
export type AggregationMode = (typeof aggregationModes)[number]

/** Old names still accepted on input, and what they mean now. */
export const legacyAggregations: Readonly<Record<string, AggregationMode>> = { local: 'three-stage' }

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
export interface RegroupResult {
  /** Full-size partials; only keys [from, to) are complete (all keys for `allreduce`). */
  partials: Partials
  from: number
  to: number
  shuffleMs: number
  reduceMs: number
  /** Encoded messages sent, by chosen form. */
  sparseMessages: number
  denseMessages: number
}

/**
 * Regroups the map outputs `tasks` (this node's map tasks) by centroid block across the group
 * and reduces them. `taskCounts[i]` is the number of map tasks of group member i (needed by
 * `direct`, where every task sends its own messages).
 */
export async function regroup(
  g: Group,
  ops: RegroupOps,
  tasks: Partials[],
  taskCounts: readonly number[],
  mode: AggregationMode,
  k: number,
  d: number,
  now: () => number,
): Promise<RegroupResult> {
  const p = g.ranks.length
  const me = groupIndex(g)
  const bounds = blockBounds(k, p)
  const shuffle: Group = { ...g, op: ops.shuffle }
  const reduce: Group = { ...g, op: ops.reduce }
  let sparseMessages = 0
  let denseMessages = 0
  const count = (sparse: boolean) => (sparse ? sparseMessages++ : denseMessages++)
  if (!aggregationModes.includes(mode))
    throw new CodebookError('AGGREGATION_UNKNOWN', `unknown aggregation mode '${String(mode)}'`)
  const t0 = now()

  const mergeLocal = (): Partials => {
    const local = createPartials(k, d)
    for (const t of tasks) addPartials(local, t)
    return local
  }

  if (p === 1) {
    // A group of one has nothing to shuffle or reduce: its merged tasks are the whole result
    // (every mode agrees; encoding and decoding 1 MB blocks to itself cost ~6 ms per iteration).
    return {
      partials: mergeLocal(),
      from: 0,
      to: k,
      shuffleMs: 0,
      reduceMs: now() - t0,
      sparseMessages,
      denseMessages,
    }
  }

  if (mode === 'direct' || mode === 'three-stage') {
    const senders = mode === 'direct' ? tasks : [mergeLocal()]
    const sends: Promise<void>[] = []
    for (let j = 0; j < p; j++) {
      if (j === me) continue
      senders.forEach((part, step) => {
        const enc = encodeBlock(part, bounds[j]!, bounds[j + 1]!)
        count(enc.sparse)
        sends.push(sendTo(shuffle, j, step, enc.bytes))
      })
    }
    const recvs: Promise<Uint8Array>[] = []
    for (let i = 0; i < p; i++) {
      if (i === me) continue
      const messages = mode === 'direct' ? taskCounts[i]! : 1
      for (let step = 0; step < messages; step++) recvs.push(recvFrom(shuffle, i, step))
    }
    const [, received] = await Promise.all([Promise.all(sends), Promise.all(recvs)])
    const t1 = now()
    const own = createPartials(k, d)
    for (const part of senders) addPartials(own, part)
    for (const bytes of received) mergeBlock(own, bytes)
    return {
      partials: own,
      from: bounds[me]!,
      to: bounds[me + 1]!,
      shuffleMs: t1 - t0,
      reduceMs: now() - t1,
      sparseMessages,
      denseMessages,
    }
  }

  const local = mergeLocal()
  const t1 = now()
  if (mode === 'allreduce') {
    // Counts ride in the same vector as the sums, so one all-reduce carries the whole value.
    const flat = new Float64Array(k * d + k)
    flat.set(local.sums, 0)
    flat.set(local.counts, k * d)
    await allReduceSum(reduce, flat)
    denseMessages += p > 1 ? 2 * (p - 1) : 0
    const partials: Partials = { k, d, sums: flat.subarray(0, k * d), counts: flat.subarray(k * d) }
    return {
      partials,
      from: 0,
      to: k,
      shuffleMs: t1 - t0,
      reduceMs: now() - t1,
      sparseMessages,
      denseMessages,
    }
  }
  // Ring reduce-scatter by centroid block: in step s send the running block (me − s), receive
  // block (me − s − 1) and add it in; after p − 1 steps block (me + 1) mod p is complete here.
  const next = (me + 1) % p
  const prev = (me - 1 + p) % p
  for (let s = 0; s < p - 1; s++) {
    const sb = (me - s + p) % p
    const enc = encodeBlock(local, bounds[sb]!, bounds[sb + 1]!)
    count(enc.sparse)
    const [, got] = await Promise.all([sendTo(reduce, next, s, enc.bytes), recvFrom(reduce, prev, s)])
    mergeBlock(local, got)
  }
  const owned = (me + 1) % p
  return {
    partials: local,
    from: bounds[owned]!,
    to: bounds[owned + 1]!,
    shuffleMs: t1 - t0,
    reduceMs: now() - t1,
    sparseMessages,
    denseMessages,
  }
}

/**
 * Combine: gathers every node's reduced block at group member `root`, which resolves to the full
 * partials (others resolve to null). With `allreduce` every node already has everything, so no
 * bytes move.
 */
export async function combineAtRoot(
  g: Group,
  root: number,
  r: RegroupResult,
  mode: AggregationMode,
): Promise<Partials | null> {
  const me = groupIndex(g)
  // With allreduce every node has everything; a group of one holds everything too.
  if (mode === 'allreduce' || g.ranks.length === 1) return me === root ? r.partials : null
  const enc = encodeBlock(r.partials, r.from, r.to)
  const blocks = await gather(g, root, enc.bytes)
  if (!blocks) return null
  const full = createPartials(r.partials.k, r.partials.d)
  for (const b of blocks) mergeBlock(full, b)
  return full
}
