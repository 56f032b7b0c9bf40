import { runReductions } from '@codebook/shared'
import { CodebookError } from '../../errors.ts'
import { staticReductionPlan } from '../../reductions/plans.ts'
import { type Group, groupIndex, recvFrom, sendTo } from '../group.ts'
import { dynamicReduce } from './dynamic-reduce.ts'
import { nonCommutTreeDynPairing, treeDynPairing } from './pairing.ts'
import type { MemberReduction, ReduceHooks, ReduceInput } from './reduce-types.ts'
import { staticReduce } from './static-reduce.ts'

/**
 * The reductions of whole values along a tree (Benoit, Canon, Marchal): `binomial`
 * (Binomial-stat), `fibonacci` (Fibonacci-stat), `tree-dyn` and `noncommut-tree-dyn`. They are
 * the `reduction` choices of a K-means run other than `regroup`.
 */
export const treeReductions = runReductions.filter((r) => r !== 'regroup') as unknown as readonly [
  TreeReduction,
  ...TreeReduction[],
]
export type TreeReduction = Exclude<(typeof runReductions)[number], 'regroup'>
/** A run's reduction: `regroup` (by key block, see `regroup.ts`) or one of {@link treeReductions}. */
export type ReductionChoice = (typeof runReductions)[number]
export { runReductions as reductionChoices }

/** A reduction name as a user gives it (`CodebookError` `REDUCTION_UNKNOWN` otherwise). */
export function parseReduction(name: string): ReductionChoice {
  if (!(runReductions as readonly string[]).includes(name))
    throw new CodebookError(
      'REDUCTION_UNKNOWN',
      `unknown reduction '${name}': use ${runReductions.join(', ')}`,
    )
  return name as ReductionChoice
}

/** Ops of one reduction: the tree on `reduce`, moving its result to the root on `combine`. */
export interface ReduceOps {
  reduce: number
  combine: number
}

/** What a member gets from {@link reduceToRoot}. */
export interface ReduceToRootResult<P> {
  /** The reduced value at the root, null elsewhere. */
  result: P | null
  /** The member the tree ended at (known at the root; null elsewhere). */
  holder: number | null
  /** This member's time in the tree, and in moving the result to the root. */
  reduceMs: number
  combineMs: number
  sparseMessages: number
  denseMessages: number
}

/**
 * Reduces every member's `input.value` to group member `root` with `algorithm` (every member
 * calls it with the same arguments but its own value, which is combined into in place). The
 * result is the fold of all members' values; for a non-commutative combiner
 * (`noncommut-tree-dyn`, or a static tree that joins adjacent intervals) the fold in group
 * order. `tree-dyn` needs a commutative combiner (`REDUCE_NEEDS_COMMUTATIVE`).
 */
export async function reduceToRoot<P>(
  g: Group,
  ops: ReduceOps,
  root: number,
  input: ReduceInput<P>,
  algorithm: TreeReduction,
  now: () => number,
  hooks: ReduceHooks = {},
): Promise<ReduceToRootResult<P>> {
  const me = groupIndex(g)
  const n = g.ranks.length
  if (!treeReductions.includes(algorithm))
    throw new CodebookError('REDUCTION_UNKNOWN', `unknown reduction '${String(algorithm)}'`)
  if (algorithm === 'tree-dyn' && !input.combiner.commutative)
    throw new CodebookError(
      'REDUCE_NEEDS_COMMUTATIVE',
      `tree-dyn pairs values in any order; the ${input.combiner.name} combiner is not commutative: use noncommut-tree-dyn`,
    )
  const t0 = now()
  const tree = { ...g, op: ops.reduce }
  let r: MemberReduction<P>
  if (algorithm === 'tree-dyn') r = await dynamicReduce(tree, root, input, treeDynPairing, hooks)
  else if (algorithm === 'noncommut-tree-dyn')
    r = await dynamicReduce(tree, root, input, () => nonCommutTreeDynPairing(n), hooks)
  else r = await staticReduce(tree, staticReductionPlan(algorithm, n), input, hooks)
  const t1 = now()
  // The value ends where the tree ends; the root gets it from there (one transfer, or none).
  const move = { ...g, op: ops.combine }
  let result: P | null = me === root ? r.value : null
  if (r.holder !== null && r.holder !== root) {
    if (me === r.holder) {
      const enc = input.combiner.encode(r.value!, 0, input.keys)
      if (enc.sparse) r.messages.sparse++
      else r.messages.dense++
      await sendTo(move, root, 0, enc.bytes)
    } else if (me === root) {
      result = input.combiner.zero(input.keys)
      input.combiner.combineBlock(result, await recvFrom(move, r.holder, 0), 'right')
    }
  }
  return {
    result,
    holder: r.holder,
    reduceMs: t1 - t0,
    combineMs: now() - t1,
    sparseMessages: r.messages.sparse,
    denseMessages: r.messages.dense,
  }
}
