import { isDeepStrictEqual } from 'node:util'
import { CodebookError } from '../../errors.ts'
import type { WorkerPool } from '../../framework/worker-pool.ts'
import { GammaDistribution } from '../../random/gamma.ts'
import { createRng } from '../../random/rng.ts'
import { createReductionPlayer } from '../../reductions/study/algorithms.ts'
import { GammaInstanceCosts } from '../../reductions/study/costs.ts'
import { clusterSumsCombiner } from '../regroup/cluster-sums-combiner.ts'
import type { Partials } from '../regroup/partials.ts'
import { type TreeReduction, treeReductions } from './reduce.ts'
import { type ReduceCheckResult, reductionApplication } from './reduce-app.ts'

/** Sums per key of the benchmark's values: 7 sums and a count, 64 bytes a key when dense. */
const BENCH_SUM_WIDTH = 7
const BYTES_PER_KEY = 8 * (BENCH_SUM_WIDTH + 1)
const benchCombiner = clusterSumsCombiner(BENCH_SUM_WIDTH)

/** The reduction application every worker serves (`codebook bench reduction`): cluster sums. */
export const reductionBenchApplication = reductionApplication('reduction', { 'cluster-sums': benchCombiner })

/** Options of {@link benchReduction}. */
export interface ReductionBenchOptions {
  /** Bytes of each worker's value (whole keys of 64 bytes, at least one). */
  bytes: number
  /** Coefficient of variation of every injected delay (gamma distributed; 0: constant). */
  jitterCv: number
  /** Mean delay of a transfer (the study's μd), ms. */
  linkMs: number
  /** Mean delay of a ⊕ (the study's μc), ms. */
  computeMs: number
  /** Instances (fresh delay draws); every algorithm runs on each. */
  runs: number
  seed: number
  algorithms?: readonly TreeReduction[]
  /** Called after each instance with its index. */
  onRun?: (run: number) => void
}

/** One algorithm's figures over the instances. */
export interface ReductionBenchRow {
  algorithm: TreeReduction
  workers: number
  bytes: number
  jitterCv: number
  linkMs: number
  computeMs: number
  runs: number
  /** Mean over instances of the tree's time from the barrier to its last ⊕ (seen at the root), ms. */
  measuredMs: number
  /** Mean time then to move the result to the root, when the tree ended elsewhere (not in the model), ms. */
  toRootMs: number
  /** Mean of the study's makespan for the same delays (its player, oblivious to them), ms. */
  predictedMs: number
  measuredRunsMs: number[]
  predictedRunsMs: number[]
}

/** Integer sums (exact in any order) over `keys` keys, every key present: dense values. */
function benchValue(keys: number, seed: number): Partials {
  const rng = createRng(seed)
  const p = benchCombiner.zero(keys)
  for (let k = 0; k < keys; k++) {
    p.counts[k] = 1 + rng.int(9)
    for (let t = 0; t < BENCH_SUM_WIDTH; t++) p.sums[k * BENCH_SUM_WIDTH + t] = rng.int(2001) - 1000
  }
  return p
}

/**
 * Runs every algorithm on `runs` instances of the paper's heterogeneous platform over the pool's
 * workers: each instance draws a gamma delay per ordered pair of workers (mean `linkMs`) and per
 * worker (mean `computeMs`), CV `jitterCv` (the study's `GammaInstanceCosts`, seeded), and
 * injects them into the real reduction (a value from i to j waits d(i→j) + c(j) at j before its
 * ⊕). Beside the measured time it plays the study's model on the same draws. Every result is
 * checked bit for bit against the sum computed here (`BENCH_WRONG_RESULT`).
 */
export async function benchReduction(
  pool: WorkerPool,
  o: ReductionBenchOptions,
): Promise<ReductionBenchRow[]> {
  const p = pool.size
  const algorithms = o.algorithms ?? treeReductions
  const keys = Math.max(1, Math.round(o.bytes / BYTES_PER_KEY))
  const values = Array.from({ length: p }, (_, i) => benchValue(keys, o.seed * 7919 + i))
  const expected = benchCombiner.zero(keys)
  for (const v of values) benchCombiner.combine(expected, v)
  const blobs = values.map((v) => benchCombiner.encode(v, 0, keys).bytes)
  const ranks = Array.from({ length: p }, (_, i) => i)
  const costs = new GammaInstanceCosts(
    p,
    new GammaDistribution(o.linkMs, o.jitterCv),
    new GammaDistribution(o.computeMs, o.jitterCv),
  )
  const players = algorithms.map((a) => createReductionPlayer(a, p))
  const measured = algorithms.map(() => [] as number[])
  const toRoot = algorithms.map(() => [] as number[])
  const predicted = algorithms.map(() => [] as number[])

  const runOnce = async (algorithm: TreeReduction, delays?: { computeMs: number[]; linkMs: number[][] }) => {
    const ops = { sync: pool.nextOpId(), reduce: pool.nextOpId(), combine: pool.nextOpId() }
    const replies = await Promise.all(
      ranks.map((rank) =>
        pool.call(
          rank,
          reductionBenchApplication,
          { type: 'reduce', combiner: 'cluster-sums', algorithm, ranks, root: 0, ops, keys, delays },
          [blobs[rank]!],
        ),
      ),
    )
    const got = benchCombiner.zero(keys)
    benchCombiner.combineBlock(got, replies[0]!.blobs[0]!, 'right')
    if (!isDeepStrictEqual(got.sums, expected.sums) || !isDeepStrictEqual(got.counts, expected.counts))
      throw new CodebookError(
        'BENCH_WRONG_RESULT',
        `${algorithm} on ${p} workers: the reduced sums differ from the sum`,
      )
    return replies[0]!.result as ReduceCheckResult
  }

  // Warm-up: connections between every pair the dynamic trees may use, and the JIT.
  for (const a of algorithms) await runOnce(a)
  for (let run = 0; run < o.runs; run++) {
    costs.setInstance(o.seed, run)
    const m = costs.toMatrix()
    const delays = {
      computeMs: ranks.map((i) => m.computation(i)),
      linkMs: ranks.map((i) => ranks.map((j) => (i === j ? 0 : m.communication(i, j)))),
    }
    for (const [a, algorithm] of algorithms.entries()) {
      const root = await runOnce(algorithm, delays)
      measured[a]!.push(root.reduceMs)
      toRoot[a]!.push(root.combineMs)
      predicted[a]!.push(players[a]!.play(m))
    }
    o.onRun?.(run)
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length
  return algorithms.map((algorithm, a) => ({
    algorithm,
    workers: p,
    bytes: keys * BYTES_PER_KEY,
    jitterCv: o.jitterCv,
    linkMs: o.linkMs,
    computeMs: o.computeMs,
    runs: o.runs,
    measuredMs: mean(measured[a]!),
    toRootMs: mean(toRoot[a]!),
    predictedMs: mean(predicted[a]!),
    measuredRunsMs: measured[a]!,
    predictedRunsMs: predicted[a]!,
  }))
}
