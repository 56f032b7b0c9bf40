import type { IterationReport } from '@codebook/shared'

/**
 * One line on an iteration's approximate assignment for the run page: which search the workers
 * ran (an HNSW `index`, a `walk` of the centroid graph, or both when some rebuilt), the sampled
 * recall and the sample's inertia above the exact assignment's. Undefined for an exact iteration.
 */
export function approximateSummary(report: IterationReport | null | undefined): string | undefined {
  if (!report || report.assignmentRecall === undefined) return undefined
  const searches = [...new Set(report.workers.map((w) => w.approximateSearch).filter((s) => s !== undefined))]
  searches.sort()
  const how = searches.length > 0 ? `approximate (${searches.join(' + ')})` : 'approximate'
  const gap =
    report.assignmentInertiaGap === undefined
      ? ''
      : `, sample inertia +${(100 * report.assignmentInertiaGap).toFixed(2)} %`
  return `${how}, recall ${report.assignmentRecall.toFixed(3)}${gap}`
}
