import type { Topology } from '@codebook/shared'

/**
 * Two sites of 3 and 1 nodes (10 Gbit/s NICs), 20 ms and 1 Gbit/s between them: uneven
 * capacities, the instance that once kept MPIPP passing until its time bound.
 */
export function pairTopology(): Topology {
  const node = (name: string) => ({ name, host: 'local', slots: 1, nicGbps: 10 })
  return {
    version: 1,
    name: 'pair',
    sites: [
      { name: 'lab-a', racks: [{ name: 'ra', uplinkGbps: 40, nodes: [node('a0'), node('a1'), node('a2')] }] },
      { name: 'lab-b', racks: [{ name: 'rb', uplinkGbps: 40, nodes: [node('b0')] }] },
    ],
    siteLinks: {
      latencyMs: [
        [0, 20],
        [20, 0],
      ],
      bandwidthGbps: [
        [0, 1],
        [1, 0],
      ],
    },
  }
}
