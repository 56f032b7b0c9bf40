import { z } from 'zod'
import { defineApplication } from '../framework/application.ts'
import type { WorkerPool } from '../framework/worker-pool.ts'
import { createRng } from '../random/rng.ts'
import { chainOrder, chainOrderKinds } from '../topology/chain-order.ts'
import type { ByteTotals } from '../transport/byte-counters.ts'
import type { DataPlane } from '../transport/data-plane.ts'
import { allGather } from './all-gather.ts'
import { allReduceSum } from './all-reduce.ts'
import { barrier } from './barrier.ts'
import { broadcast, broadcastAlgorithms } from './broadcast/index.ts'
import { gather } from './gather.ts'
import type { Group } from './group.ts'
import { patternBytes, patternFloat64, sha256 } from './pattern.ts'

/** Collective operations a worker can run on request (tests and `codebook bench collective`). */
export const collectiveOps = ['broadcast', 'all-gather', 'gather', 'all-reduce', 'barrier'] as const

/** A request to run one collective over synthetic data on a subset of workers. */
export const CollectiveSpec = z.object({
  op: z.enum(collectiveOps),
  /** Global ranks of the participants, in group order. */
  ranks: z.array(z.number().int().nonnegative()).min(1),
  /** Root as a group index. */
  root: z.number().int().nonnegative().default(0),
  /** Payload bytes (the root's for broadcast; per member for gathers — member i adds i bytes; all-reduce: ⌊bytes/8⌋ doubles). */
  bytes: z.number().int().nonnegative(),
  seed: z.number().int().default(1),
  algorithm: z.enum(broadcastAlgorithms).default('chain'),
  chainOrder: z.enum(chainOrderKinds).default('rank'),
  ackWindowMs: z.number().positive().optional(),
  /** Run a barrier before starting the clock (benchmarks); off where a member may be absent or unreachable. */
  sync: z.boolean().default(false),
  /** Receive timeout per message, ms. */
  timeoutMs: z.number().positive().optional(),
})
export type CollectiveSpec = z.infer<typeof CollectiveSpec>

/** What one worker reports after a collective. */
export interface CollectiveOutcome {
  rank: number
  /** SHA-256 of what this member ended with (empty for members that end with nothing). */
  hash: string
  ms: number
  bytes: ByteTotals
  skipped: number[]
}

/** The input of group member `i` for a spec: what tests recompute independently to check results. */
export function memberInput(spec: Pick<CollectiveSpec, 'op' | 'bytes' | 'seed'>, i: number): Uint8Array {
  if (spec.op === 'all-reduce') {
    const a = patternFloat64(Math.floor(spec.bytes / 8), spec.seed + i)
    return new Uint8Array(a.buffer)
  }
  if (spec.op === 'broadcast') return patternBytes(spec.bytes, spec.seed)
  return patternBytes(spec.bytes + i, spec.seed + i)
}

/** Runs one collective at this worker. `racks` gives the rack of every global rank. */
export async function runCollective(
  plane: DataPlane,
  opId: number,
  spec: CollectiveSpec,
  racks: readonly string[],
  now: () => number,
): Promise<CollectiveOutcome> {
  const g: Group = { plane, ranks: spec.ranks, op: opId, timeoutMs: spec.timeoutMs }
  const me = spec.ranks.indexOf(plane.rank)
  const input = spec.op === 'broadcast' && me !== spec.root ? null : memberInput(spec, me)
  // Inputs take a while to generate at large sizes: with `sync`, members line up first so no
  // member's clock includes waiting for another's preparation. The barrier uses its own op id.
  if (spec.sync) {
    await barrier({ ...g, op: (opId | 0x80000000) >>> 0 })
    plane.counters.takeOp((opId | 0x80000000) >>> 0)
  }
  const t0 = now()
  // Results are hashed after the clock stops, so the time is the collective's alone.
  let result: Uint8Array[] = []
  let skipped: number[] = []
  switch (spec.op) {
    case 'broadcast': {
      const order = chainOrder(
        spec.chainOrder,
        spec.ranks.map((r) => racks[r] ?? ''),
        spec.root,
        createRng(spec.seed),
      )
      const res = await broadcast(g, spec.root, input, {
        algorithm: spec.algorithm,
        order,
        ackWindowMs: spec.ackWindowMs,
      })
      result = [res.data]
      skipped = res.skipped
      break
    }
    case 'all-gather':
      result = await allGather(g, input!)
      break
    case 'gather': {
      const blocks = await gather(g, spec.root, input!)
      result = blocks ?? []
      break
    }
    case 'all-reduce': {
      const a = new Float64Array(input!.buffer, input!.byteOffset, input!.byteLength / 8)
      const out = await allReduceSum(g, a)
      result = [new Uint8Array(out.buffer, out.byteOffset, out.byteLength)]
      break
    }
    case 'barrier':
      await barrier(g)
      break
  }
  const ms = now() - t0
  const hash = spec.op === 'barrier' || (spec.op === 'gather' && result.length === 0) ? '' : sha256(...result)
  return { rank: plane.rank, hash, ms, bytes: plane.counters.takeOp(opId), skipped }
}

const collectiveMessages = z.discriminatedUnion('type', [
  z.object({ type: z.literal('collective'), opId: z.number().int().nonnegative(), spec: CollectiveSpec }),
])

/**
 * The synthetic collectives as an application on the framework: a worker serves
 * `{ type: 'collective', opId, spec }` by running the spec's collective over its data plane.
 */
export const collectiveApplication = defineApplication({
  name: 'collective',
  messages: collectiveMessages,
  createState: () => null,
  async handle(_state, m, _blobs, ctx) {
    return { result: await runCollective(ctx.plane, m.opId, m.spec, ctx.racks(), ctx.now) }
  },
})

/** Runs one synthetic collective on the spec's ranks of `pool`; each participant's outcome, in group order. */
export async function runCollectiveOn(
  pool: WorkerPool,
  spec: Partial<CollectiveSpec> & Pick<CollectiveSpec, 'op' | 'ranks' | 'bytes'>,
): Promise<CollectiveOutcome[]> {
  const opId = pool.nextOpId()
  // The workers parse the message, so the spec's defaults are filled there.
  const message = { type: 'collective', opId, spec } as z.infer<typeof collectiveMessages>
  const replies = await Promise.all(spec.ranks.map((r) => pool.call(r, collectiveApplication, message)))
  return replies.map((m) => m.result as CollectiveOutcome)
}
