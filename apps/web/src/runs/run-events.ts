import type { IterationReport, StageName } from '@codebook/shared'
import { stageNames } from '@codebook/shared'

/** Wall-clock time of one iteration: the sum of its stages' critical-path times, ms. */
export function iterationMs(report: IterationReport): number {
  let ms = 0
  for (const s of stageNames) ms += report.stages[s]?.ms ?? 0
  return ms
}

/**
 * For each stage, the rank of the worker that took longest (the critical path of the stage);
 * null for a stage no worker reports. Ties go to the lowest rank.
 */
export function criticalWorkers(report: IterationReport): Record<StageName, number | null> {
  const out = {} as Record<StageName, number | null>
  for (const s of stageNames) {
    let best: number | null = null
    let bestMs = Number.NEGATIVE_INFINITY
    for (const w of report.workers) {
      const ms = w.stages[s]?.ms
      if (ms === undefined) continue
      if (ms > bestMs || (ms === bestMs && best !== null && w.rank < best)) {
        best = w.rank
        bestMs = ms
      }
    }
    out[s] = best
  }
  return out
}
