import { z } from 'zod'
import { allReduceSum } from '../collectives/all-reduce.ts'
import { openNpy } from '../formats/index.ts'
import { defineApplication } from '../framework/application.ts'

/**
 * Per-column count, mean and variance of a .npy over the workers' row blocks: the framework's
 * second application (the seam that keeps the framework free of K-means). `load` reads the
 * worker's rows once into its state; `moments` sums [count, Σ(x − shift), Σ(x − shift)²] with a
 * ring all-reduce over the data plane, so every worker ends with the totals.
 */
const count = z.number().int().nonnegative()

export const ColumnStatsMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('load'), file: z.string(), start: count, count, d: count }),
  z.object({
    type: z.literal('moments'),
    /** Global ranks of the participants (group order) and the collective's op id. */
    ranks: z.array(count).min(1),
    op: count,
    /** Subtracted from every row before summing (the first row), so Σx² does not swamp the variance. */
    shift: z.array(z.number()),
  }),
])
export type ColumnStatsMessage = z.infer<typeof ColumnStatsMessage>

/** A worker's rows, kept between messages. */
interface ColumnStatsState {
  rows: Float32Array
  d: number
}

export const columnStatsApplication = defineApplication({
  name: 'column-stats',
  messages: ColumnStatsMessage,
  createState: (): ColumnStatsState => ({ rows: new Float32Array(0), d: 0 }),
  async handle(state, message, _blobs, ctx) {
    if (message.type === 'load') {
      const f = await openNpy(message.file)
      try {
        const raw = await f.readRows(message.start, message.count)
        state.rows = raw instanceof Float32Array ? raw : Float32Array.from(raw)
        state.d = f.d
      } finally {
        await f.close()
      }
      return { result: { rows: message.count } }
    }
    const d = state.d
    const shift = message.shift
    const sums = new Float64Array(1 + 2 * d)
    const n = d === 0 ? 0 : state.rows.length / d
    sums[0] = n
    for (let i = 0; i < n; i++) {
      for (let t = 0; t < d; t++) {
        const x = state.rows[i * d + t]! - (shift[t] ?? 0)
        sums[1 + t]! += x
        sums[1 + d + t]! += x * x
      }
    }
    await allReduceSum({ plane: ctx.plane, ranks: message.ranks, op: message.op }, sums)
    return { blobs: [new Uint8Array(sums.buffer)] }
  },
})
