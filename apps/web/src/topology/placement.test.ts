import type { PlanResult, Topology } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import {
  gainOverRandom,
  oneSiteNote,
  PLACEMENT_FORM_DEFAULTS,
  placementFormFor,
  placementRequest,
  rankRanges,
  sitePlacements,
  topologyPlanSites,
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
      body: { pattern: 'kmeans', aggregation: 'ring', processes: 64, constraintRatio: 0.2, seed: 1 },
    })
    // The aggregation is a K-means choice: other workloads do not send it.
    const lu = placementRequest({ ...PLACEMENT_FORM_DEFAULTS, pattern: 'lu' })
    expect(lu.ok && 'aggregation' in lu.body).toBe(false)
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
  it('plans on the edited topology only when its sites can be priced, one process per node', () => {
    const node = (name: string) => ({ name, host: 'local', slots: 1, nicGbps: 1 })
    const rack = (name: string) => ({ name, uplinkGbps: 10, nodes: [node(`${name}-0`), node(`${name}-1`)] })
    const topology: Topology = {
      version: 1,
      name: 'two',
      sites: [
        { name: 'a', racks: [rack('ra')] },
        { name: 'b', racks: [rack('rb')] },
      ],
      siteLinks: {
        latencyMs: [
          [0, 5],
          [5, 0],
        ],
        bandwidthGbps: [
          [0, 1],
          [1, 0],
        ],
      },
    }
    const form = {
      ...PLACEMENT_FORM_DEFAULTS,
      sites: 'topology' as const,
      pattern: 'lu' as const,
      processes: '4',
    }
    expect(topologyPlanSites(topology)).toEqual({ ok: true, sites: 2, nodes: 4 })
    const ok = placementRequest(form, topology)
    expect(ok).toMatchObject({ ok: true, body: { processes: 4, topology } })
    expect(placementRequest({ ...form, processes: '5' }, topology)).toMatchObject({
      ok: false,
      field: 'processes',
      message: 'this topology has 4 nodes (one process per node)',
    })
    const { siteLinks: _, ...unlinked } = topology
    expect(placementRequest(form, unlinked)).toMatchObject({ ok: false, field: 'sites' })
    // The built-in profile never carries the topology.
    expect(placementRequest({ ...form, sites: 'ec2-4' }, topology)).toMatchObject({ ok: true })
    expect(
      (placementRequest({ ...form, sites: 'ec2-4' }, topology) as { body: object }).body,
    ).not.toHaveProperty('topology')
  })
})

describe('placement defaults', () => {
  const site = (name: string, nodes: number) => ({
    name,
    racks: [
      {
        name: `${name}-r`,
        uplinkGbps: 10,
        nodes: Array.from({ length: nodes }, (_, i) => ({
          name: `${name}-${i}`,
          host: 'local',
          slots: 1,
          nicGbps: 1,
        })),
      },
    ],
  })
  it('defaults to the topology’s own sites when it has several with links', () => {
    const one = { name: 'one', sites: [site('a', 4)] } as unknown as Topology
    expect(placementFormFor(one).sites).toBe('ec2-4')
    const two = {
      name: 'two',
      sites: [site('a', 4), site('b', 3)],
      siteLinks: {
        latencyMs: [
          [0, 20],
          [20, 0],
        ],
        bandwidthMbps: [
          [0, 100],
          [100, 0],
        ],
      },
    } as unknown as Topology
    expect(placementFormFor(two)).toMatchObject({ sites: 'topology', processes: '7' })
    const unlinked = { ...two, siteLinks: undefined } as unknown as Topology
    expect(placementFormFor(unlinked).sites).toBe('ec2-4')
  })
  it('says why one site ties every planner', () => {
    expect(oneSiteNote(1)).toMatch(/every mapping costs the same/)
    expect(oneSiteNote(4)).toBeNull()
  })
})
