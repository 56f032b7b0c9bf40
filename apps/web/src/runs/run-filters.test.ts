import type { Run } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { emptyRunFilters, parseTags, runFiltersOf, sortRuns } from './run-filters.ts'

const run = (id: string, k: number, inertia: number | null, name: string | null = null) =>
  ({ id, name, inertia, params: { k } }) as unknown as Run

describe('run filters', () => {
  it('sends only the filters set, trimmed, with days as local-midnight instants (the end day included)', () => {
    expect(runFiltersOf(emptyRunFilters)).toEqual({})
    const f = runFiltersOf({
      ...emptyRunFilters,
      q: ' sweep ',
      status: 'succeeded',
      k: '16',
      tag: 'a',
      from: '2026-03-01',
      to: '2026-03-02',
    })
    expect(f).toMatchObject({ q: 'sweep', status: 'succeeded', k: 16, tag: 'a' })
    expect(new Date(f.createdAfter!).getDate()).toBe(1)
    expect(new Date(f.createdBefore!).getDate()).toBe(3)
    expect(runFiltersOf({ ...emptyRunFilters, k: 'x', from: 'yesterday' })).toEqual({})
  })

  it('reads comma-separated tags', () => {
    expect(parseTags(' a, b ,,a, c d ')).toEqual(['a', 'b', 'c d'])
  })

  it('sorts by inertia (runs without one last), k or name, ties in the newest-first order', () => {
    const runs = [run('r1', 8, 5), run('r2', 4, null), run('r3', 8, 2, 'zeta'), run('r4', 16, 9, 'alpha')]
    const ids = (rs: Run[]) => rs.map((r) => r.id)
    expect(ids(sortRuns(runs, 'newest'))).toEqual(['r1', 'r2', 'r3', 'r4'])
    expect(ids(sortRuns(runs, 'oldest'))).toEqual(['r4', 'r3', 'r2', 'r1'])
    expect(ids(sortRuns(runs, 'inertia-asc'))).toEqual(['r3', 'r1', 'r4', 'r2'])
    expect(ids(sortRuns(runs, 'inertia-desc'))).toEqual(['r4', 'r1', 'r3', 'r2'])
    expect(ids(sortRuns(runs, 'k-asc'))).toEqual(['r2', 'r1', 'r3', 'r4'])
    expect(ids(sortRuns(runs, 'k-desc'))).toEqual(['r4', 'r1', 'r3', 'r2'])
    expect(ids(sortRuns(runs, 'name'))).toEqual(['r4', 'r1', 'r2', 'r3'])
  })
})
