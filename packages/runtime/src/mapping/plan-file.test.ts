import { describe, expect, it } from 'vitest'
import { generateTopology } from '../topology/generate.ts'
import { mappedWorkerRacks } from '../topology/load-topology.ts'
import { type PlanFile, planNodeNames } from './plan-file.ts'

// Two plan sites of two nodes each; rank i → node nodeOf[i] (site s's nodes after site s − 1's).
const plan: PlanFile = {
  sites: ['us-east', 'ireland'],
  capacity: [2, 2],
  processes: 3,
  plans: [
    { algorithm: 'random', cost: 2, siteOf: [0, 1, 1], nodeOf: [0, 2, 3] },
    { algorithm: 'geo', cost: 1, siteOf: [1, 0, 0], nodeOf: [2, 0, 1] },
  ],
}

/** 2 sites × 1 rack × 2 nodes: site-0 holds node-0, node-1 on rack-0; site-1 node-2, node-3 on rack-1. */
function twoSites(names?: [string, string]) {
  const t = generateTopology({ sites: 2, racks: 1, nodesPerRack: 2, nodeGbps: 1, uplinkGbps: 10 })
  if (names) for (const [i, s] of t.sites.entries()) s.name = names[i]!
  return t
}

describe('planNodeNames', () => {
  it('follows the cheapest plan by default and matches sites by position when no name matches', () => {
    expect(planNodeNames(plan, twoSites(), 3)).toEqual(['node-2', 'node-0', 'node-1'])
    expect(planNodeNames(plan, twoSites(), 2, 'random')).toEqual(['node-0', 'node-2'])
  })

  it('matches plan sites to topology sites by name, whatever their order', () => {
    // The topology lists ireland first: plan site 1 (ireland) is now topology site 0.
    const t = twoSites(['ireland', 'us-east'])
    const names = planNodeNames(plan, t, 3, 'geo')
    expect(names).toEqual(['node-0', 'node-2', 'node-3'])
    expect(mappedWorkerRacks(t, names)).toEqual(['rack-0', 'rack-1', 'rack-1'])
  })

  it('refuses plans the topology cannot hold, and unknown node names, with codes', () => {
    const small = generateTopology({ sites: 2, racks: 1, nodesPerRack: 1, nodeGbps: 1, uplinkGbps: 10 })
    expect(() => planNodeNames(plan, small, 3, 'random')).toThrow(
      expect.objectContaining({ code: 'PLAN_TOPOLOGY_MISMATCH' }),
    )
    expect(() => planNodeNames(plan, twoSites(), 4)).toThrow(
      expect.objectContaining({ code: 'PLAN_TOO_SMALL' }),
    )
    expect(() => mappedWorkerRacks(twoSites(), ['node-1', 'node-9'])).toThrow(
      expect.objectContaining({
        code: 'MAPPING_UNKNOWN_NODE',
        message: expect.stringContaining("mapping[1] names node 'node-9'"),
      }),
    )
  })
})
