import type { PlanResult } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import {
  gainOverRandom,
  PLACEMENT_FORM_DEFAULTS,
  placementRequest,
  rankRanges,
  sitePlacements,
} from './placement.ts'

const result: PlanResult = {
  profile: 'ec2-4',
  sites: ['a', 'b'],
  capacity: [3, 3],
  pattern: 'lu',
  processes: 5,
  constraints: [-1, 1, -1, 0, 1],
  plans: [
    { algorithm: 'geo', cost: 1, planMs: 2, siteOf: [0, 1, 0, 0, 1], nodeOf: [0, 3, 1, 2, 4] },
    { algorithm: 'random', cost: 4, planMs: 1, siteOf: [1, 1, 0, 0, 1], nodeOf: [3, 4, 0, 1, 5] },
  ],
  chosen: 'geo',
}

describe('placement panel helpers', () => {
  it('gathers a planner’s mapping per site with its pinned ranks', () => {
    expect(sitePlacements(result, 'random')).toEqual([
      { site: 'a', nodes: 3, ranks: [2, 3], pinned: 1 },
      { site: 'b', nodes: 3, ranks: [0, 1, 4], pinned: 2 },
    ])
    expect(sitePlacements(result, 'geo')).toEqual([
      { site: 'a', nodes: 3, ranks: [0, 2, 3], pinned: 1 },
      { site: 'b', nodes: 3, ranks: [1, 4], pinned: 2 },
    ])
  })

  it('prices the gain over random', () => {
    expect(gainOverRandom(result, 1)).toBe(0.75)
    expect(gainOverRandom({ ...result, plans: [result.plans[0]!] }, 1)).toBeNull()
  })

  it('writes ranks as ranges and cuts long lists', () => {
    expect(rankRanges([0, 1, 2, 3, 8, 10, 11])).toBe('0–3, 8, 10–11')
    expect(rankRanges([0, 2, 4, 6], 2)).toBe('0, 2, … (+2 more)')
    expect(rankRanges([])).toBe('')
  })

  it('checks the form at its fields with the server’s limits', () => {
    expect(placementRequest(PLACEMENT_FORM_DEFAULTS)).toMatchObject({
      ok: true,
      body: { pattern: 'kmeans', processes: 64, constraintRatio: 0.2, seed: 1 },
    })
    expect(placementRequest({ ...PLACEMENT_FORM_DEFAULTS, processes: '2048' })).toMatchObject({
      ok: false,
      field: 'processes',
    })
    expect(placementRequest({ ...PLACEMENT_FORM_DEFAULTS, pattern: 'lu', processes: '9000' })).toMatchObject({
      ok: false,
      field: 'processes',
    })
    expect(placementRequest({ ...PLACEMENT_FORM_DEFAULTS, constraintRatio: '2' })).toMatchObject({
      ok: false,
      field: 'constraintRatio',
    })
    expect(placementRequest({ ...PLACEMENT_FORM_DEFAULTS, planners: [] })).toMatchObject({
      ok: false,
      field: 'planners',
    })
    expect(placementRequest({ ...PLACEMENT_FORM_DEFAULTS, monteCarlo: '100' })).toMatchObject({
      ok: true,
      body: { monteCarlo: 100 },
    })
  })
})
