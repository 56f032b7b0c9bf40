import { CodebookError } from '../../errors.ts'
import type { ReductionPlan } from '../../reductions/plans.ts'
import { type Group, groupIndex, recvFrom, sendTo } from '../group.ts'
import type { MemberReduction, ReduceHooks, ReduceInput } from './reduce-types.ts'

/** Step of the one value each member sends. */
const VALUE = 0

/**
 * Runs a static tree (`reductions/plans.ts`: Binomial-stat, Fibonacci-stat) at this member,
 * group member i playing the plan's rank i: receive from `receiveFrom` in order, combining each
 * on the right of what it holds, then send to `sendTo`. The plans join each rank's interval with
 * the one right after it, so a non-commutative ⊕ folds in group order; a plan that did not
 * would fail with `REDUCE_ORDER` before any byte moves.
 */
export async function staticReduce<P>(
  g: Group,
  plan: ReductionPlan,
  input: ReduceInput<P>,
  hooks: ReduceHooks = {},
): Promise<MemberReduction<P>> {
  const me = groupIndex(g)
  const { combiner, value, keys } = input
  if (plan.n !== g.ranks.length)
    throw new CodebookError(
      'REDUCE_PLAN_SIZE',
      `a ${plan.algorithm} plan of ${plan.n} ranks for a group of ${g.ranks.length}`,
    )
  const mine = plan.ranks[me]!
  let end = me + 1
  for (const c of mine.receiveFrom) {
    const child = plan.ranks[c]!
    if (!combiner.commutative && child.first !== end)
      throw new CodebookError(
        'REDUCE_ORDER',
        `${plan.algorithm} plan: rank ${me} holds ranks ${me}…${end - 1} and would combine ranks ${child.first}…${child.end - 1}; the ${combiner.name} combiner is not commutative`,
      )
    end = child.end
  }
  const messages = { sparse: 0, dense: 0 }
  // In the plan's order: a value that arrives early waits in the data plane's inbox.
  for (const c of mine.receiveFrom) {
    const bytes = await recvFrom(g, c, VALUE)
    await hooks.beforeCombine?.(c)
    combiner.combineBlock(value, bytes, 'right')
  }
  // The plans' root is rank 0, and every member knows the plan, so every member knows where it ends.
  if (mine.sendTo === null) return { value, holder: me, messages }
  const enc = combiner.encode(value, 0, keys)
  if (enc.sparse) messages.sparse++
  else messages.dense++
  await sendTo(g, mine.sendTo, VALUE, enc.bytes)
  return { value: null, holder: 0, messages }
}
