import { IterationReport } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { approximateSummary } from './approximate-summary.ts'
import { syntheticReport } from './test-support/synthetic-report.ts'

/** A schema-checked report of an approximate iteration whose workers ran the given searches. */
function approximate(searches: Array<'index' | 'walk'>, recall: number, gap?: number): IterationReport {
  const base = syntheticReport(
    3,
    1,
    searches.map(() => 1),
  )
  return IterationReport.parse({
    ...base,
    assignment: 'approximate',
    assignmentRecall: recall,
    ...(gap === undefined ? {} : { assignmentInertiaGap: gap }),
    workers: base.workers.map((w, rank) => ({ ...w, approximateSearch: searches[rank] })),
  })
}

describe('approximateSummary', () => {
  it('says nothing for an exact iteration', () => {
    expect(approximateSummary(syntheticReport(1, 1))).toBeUndefined()
    expect(approximateSummary(null)).toBeUndefined()
  })

  it('names the search, the recall and the sample inertia gap in percent', () => {
    expect(approximateSummary(approximate(['walk', 'walk'], 0.99235, 0.0034717))).toBe(
      'approximate (walk), recall 0.992, sample inertia +0.35 %',
    )
  })

  it('names both searches once when some workers rebuilt their index, and omits a gap older reports lack', () => {
    expect(approximateSummary(approximate(['walk', 'index', 'walk'], 0.9))).toBe(
      'approximate (index + walk), recall 0.900',
    )
  })
})
