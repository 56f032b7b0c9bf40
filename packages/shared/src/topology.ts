import { z } from 'zod'
import { DisplayName } from './names.ts'

/** The topology format version this schema reads and writes. */
export const TOPOLOGY_VERSION = 1

const name = DisplayName
const positive = (what: string) =>
  z.number().refine((x) => Number.isFinite(x) && x > 0, `${what} must be a positive number`)

/** A machine: `host` is a hostname or address, or 'local' for this machine. */
export const TopologyNode = z.object({
  name,
  host: z.string().min(1),
  /** Map tasks this node runs. */
  slots: z.number().int().positive(),
  /** NIC (node–rack link) bandwidth, Gbit/s. */
  nicGbps: positive('nicGbps'),
})
export type TopologyNode = z.infer<typeof TopologyNode>

/** A rack: nodes behind one top-of-rack switch, with its uplink to the core. */
export const TopologyRack = z.object({
  name,
  /** Rack–core uplink bandwidth, Gbit/s. */
  uplinkGbps: positive('uplinkGbps'),
  /** One-way latency node–rack switch, µs. */
  latencyUs: z.number().nonnegative().optional(),
  nodes: z.array(TopologyNode),
})
export type TopologyRack = z.infer<typeof TopologyRack>

/** A site (data centre), optionally with coordinates for geo-distributed placement. */
export const TopologySite = z.object({
  name,
  latitude: z.number().min(-90).max(90).optional(),
  longitude: z.number().min(-180).max(180).optional(),
  racks: z.array(TopologyRack),
})
export type TopologySite = z.infer<typeof TopologySite>

/** The core switch of a site's racks. */
export const TopologyCore = z.object({
  /** Core switching capacity, Gbit/s (unbounded when absent). */
  bandwidthGbps: positive('core bandwidthGbps').optional(),
  latencyUs: z.number().nonnegative().optional(),
})
export type TopologyCore = z.infer<typeof TopologyCore>

/** Site-to-site links: M × M matrices (row = from, column = to; asymmetric allowed). */
export const SiteLinks = z.object({
  bandwidthGbps: z.array(z.array(z.number())),
  latencyMs: z.array(z.array(z.number())),
})
export type SiteLinks = z.infer<typeof SiteLinks>

/**
 * A versioned topology: site → rack → node, with link bandwidths. Structural rules a shape
 * cannot express are zod refinements with stable messages (the server returns them as is):
 * unique names (sites; racks within the topology; nodes within the topology), no empty site or
 * rack, site-link matrices M × M for M sites with positive off-diagonal bandwidths and
 * non-negative latencies.
 */
export const Topology = z
  .object({
    version: z.literal(TOPOLOGY_VERSION),
    name,
    sites: z.array(TopologySite).min(1, 'a topology needs at least one site'),
    core: TopologyCore.optional(),
    siteLinks: SiteLinks.optional(),
  })
  .superRefine((t, ctx) => {
    const dup = (kind: string, names: string[], path: (i: number) => (string | number)[]) => {
      const seen = new Set<string>()
      names.forEach((n, i) => {
        if (seen.has(n))
          ctx.addIssue({ code: 'custom', message: `duplicate ${kind} name '${n}'`, path: path(i) })
        seen.add(n)
      })
    }
    dup(
      'site',
      t.sites.map((s) => s.name),
      (i) => ['sites', i, 'name'],
    )
    const rackPaths: (string | number)[][] = []
    const rackNames: string[] = []
    const nodePaths: (string | number)[][] = []
    const nodeNames: string[] = []
    t.sites.forEach((s, si) => {
      if (s.racks.length === 0)
        ctx.addIssue({
          code: 'custom',
          message: `site '${s.name}' has no racks`,
          path: ['sites', si, 'racks'],
        })
      s.racks.forEach((r, ri) => {
        rackNames.push(r.name)
        rackPaths.push(['sites', si, 'racks', ri, 'name'])
        if (r.nodes.length === 0)
          ctx.addIssue({
            code: 'custom',
            message: `rack '${r.name}' has no nodes`,
            path: ['sites', si, 'racks', ri, 'nodes'],
          })
        r.nodes.forEach((n, ni) => {
          nodeNames.push(n.name)
          nodePaths.push(['sites', si, 'racks', ri, 'nodes', ni, 'name'])
        })
      })
    })
    dup('rack', rackNames, (i) => rackPaths[i]!)
    dup('node', nodeNames, (i) => nodePaths[i]!)
    if (t.siteLinks) {
      const m = t.sites.length
      for (const key of ['bandwidthGbps', 'latencyMs'] as const) {
        const mat = t.siteLinks[key]
        if (mat.length !== m || mat.some((row) => row.length !== m)) {
          ctx.addIssue({
            code: 'custom',
            message: `siteLinks.${key} must be ${m} × ${m} (one row and column per site)`,
            path: ['siteLinks', key],
          })
          continue
        }
        for (const [i, row] of mat.entries()) {
          for (const [j, v] of row.entries()) {
            const bad = key === 'bandwidthGbps' ? i !== j && !(v > 0) : !(v >= 0)
            if (!bad && Number.isFinite(v)) continue
            ctx.addIssue({
              code: 'custom',
              message:
                key === 'bandwidthGbps'
                  ? `siteLinks.bandwidthGbps[${i}][${j}] must be a positive number`
                  : `siteLinks.latencyMs[${i}][${j}] must be a non-negative number`,
              path: ['siteLinks', key, i, j],
            })
          }
        }
      }
    }
  })
export type Topology = z.infer<typeof Topology>

/** One node with the rack and site it sits in, in topology order (sites, racks, nodes as listed). */
export interface PlacedNode {
  node: TopologyNode
  rack: string
  site: string
}

/** Every node in topology order: worker i runs on the i-th node. */
export function topologyNodes(t: Topology): PlacedNode[] {
  return t.sites.flatMap((s) =>
    s.racks.flatMap((r) => r.nodes.map((node) => ({ node, rack: r.name, site: s.name }))),
  )
}
