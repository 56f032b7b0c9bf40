import { z } from 'zod'
import { type Application, defineApplication } from '../../framework/application.ts'
import { barrier } from '../barrier.ts'
import type { Group } from '../group.ts'
import type { Combiner } from '../regroup/combiner.ts'
import { reduceToRoot, treeReductions } from './reduce.ts'
import type { ReduceHooks } from './reduce-types.ts'

const count = z.number().int().nonnegative()
const delayMs = z.number().nonnegative().finite()

/** One reduction over the values the members are sent (`codebook bench reduction`, tests). */
function reduceMessage(combinerNames: readonly [string, ...string[]]) {
  return z.object({
    type: z.literal('reduce'),
    combiner: z.enum(combinerNames),
    algorithm: z.enum(treeReductions),
    /** Global ranks of the participants, in group order, and the root as a group index. */
    ranks: z.array(count).min(1),
    root: count,
    /** `sync` is the barrier before the clock starts; `reduce` the tree; `combine` the move to the root. */
    ops: z.object({ sync: count, reduce: count, combine: count }),
    keys: count.max(10_000_000),
    /**
     * Injected delays (the paper's heterogeneous platform): a value member j receives from
     * member i waits `linkMs[i][j]` (the transfer) + `computeMs[j]` (the ⊕) before it is combined.
     */
    delays: z.object({ computeMs: z.array(delayMs), linkMs: z.array(z.array(delayMs)) }).optional(),
    timeoutMs: z.number().positive().optional(),
  })
}

/** What a member answers (at the root, the result's encoding of all keys as a blob). */
export interface ReduceCheckResult {
  holder: number | null
  full: boolean
  /** Time in the tree and in moving the result to the root, after a barrier. */
  reduceMs: number
  combineMs: number
}

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve())

/**
 * An application running one reduction with a named combiner from `combiners`: each member folds
 * its blobs (the combiner's encodings of all keys, in order) into its value, a barrier lines the
 * members up, and {@link reduceToRoot} runs with the given delays injected.
 */
export function reductionApplication(
  name: string,
  combiners: Readonly<Record<string, Combiner<unknown>>>,
): Application<{ type: 'reduce' } & z.infer<ReturnType<typeof reduceMessage>>, null> {
  const names = Object.keys(combiners) as [string, ...string[]]
  const messages = z.discriminatedUnion('type', [reduceMessage(names)])
  return defineApplication({
    name,
    messages,
    createState: () => null,
    async handle(_state, m, blobs, ctx) {
      const combiner = combiners[m.combiner]!
      const value = combiner.zero(m.keys)
      for (const b of blobs) combiner.combineBlock(value, b, 'right')
      const g = (op: number): Group => ({ plane: ctx.plane, ranks: m.ranks, op, timeoutMs: m.timeoutMs })
      const me = m.ranks.indexOf(ctx.plane.rank)
      const hooks: ReduceHooks = m.delays
        ? {
            beforeCombine: (from) =>
              sleep((m.delays!.linkMs[from]?.[me] ?? 0) + (m.delays!.computeMs[me] ?? 0)),
          }
        : {}
      await barrier(g(m.ops.sync))
      const r = await reduceToRoot(
        g(m.ops.reduce),
        m.ops,
        m.root,
        { combiner, value, keys: m.keys },
        m.algorithm,
        ctx.now,
        hooks,
      )
      for (const op of Object.values(m.ops)) ctx.plane.counters.takeOp(op)
      const result: ReduceCheckResult = {
        holder: r.holder,
        full: r.result !== null,
        reduceMs: r.reduceMs,
        combineMs: r.combineMs,
      }
      return { result, blobs: r.result === null ? [] : [combiner.encode(r.result, 0, m.keys).bytes] }
    },
  })
}
