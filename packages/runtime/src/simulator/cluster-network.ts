import { UsageError } from '../errors.ts'
import type { SimLink } from './flow-network.ts'

/**
 * A cluster as the simulator sees it: nodes in racks, racks in sites. Bandwidths in bytes/s,
 * latencies in seconds. Links are full duplex (a send and a receive direction each).
 */
export interface ClusterSpec {
  nodes: { name: string; rack: number; nicBandwidth: number; nicLatency: number }[]
  racks: { name: string; site: number; uplinkBandwidth: number; uplinkLatency: number }[]
  /** sites × sites one-way bandwidth (asymmetric allowed); the diagonal is unused. */
  siteBandwidth?: number[][]
  siteLatency?: number[][]
  /**
   * TCP: the most bytes a connection keeps in flight (its window, bounded by the socket
   * buffers), so a flow moves at most window / RTT. Unbounded when absent.
   */
  tcpWindowBytes?: number
  /** Round-trip time a path adds to twice its one-way latency (stacks, switches), seconds. */
  baseRtt?: number
  /**
   * sites × sites one-way latency of a whole path from a node of site s to a node of site t,
   * the diagonal within a site (the network lab's delay line holds each frame once, by source
   * and destination site). When given it replaces the sum of the links' latencies on a path.
   */
  pathLatency?: number[][]
}

/** The links of a cluster and the route between any two nodes. */
export interface ClusterNetwork {
  links: SimLink[]
  /** Link indices from node `a` to node `b` (empty when a = b). */
  path(a: number, b: number): number[]
  rackOf(node: number): number
  /** Fastest a single connection from `a` to `b` can go, bytes/s (its window per round trip); absent = unbounded. */
  rateCap?(a: number, b: number): number
  /** One-way latency from `a` to `b` when a path's is not its links' sum (`pathLatency`); absent = the sum. */
  latency?(a: number, b: number): number
}

/**
 * Builds the network: every node has a NIC (tx and rx links); every rack has an uplink to the
 * core (up and down); every ordered pair of sites has a wide-area link. The rack switches and
 * the core are non-blocking, so contention happens on NICs, uplinks and site links.
 */
export function buildClusterNetwork(spec: ClusterSpec): ClusterNetwork {
  const links: SimLink[] = []
  const add = (name: string, bandwidth: number, latency: number) => {
    if (!(bandwidth > 0)) throw new UsageError('SIM_BAD_BANDWIDTH', `link ${name} has bandwidth ${bandwidth}`)
    return links.push({ name, bandwidth, latency }) - 1
  }
  const tx = spec.nodes.map((n) => add(`${n.name}.tx`, n.nicBandwidth, n.nicLatency))
  const rx = spec.nodes.map((n) => add(`${n.name}.rx`, n.nicBandwidth, 0))
  const up = spec.racks.map((r) => add(`${r.name}.up`, r.uplinkBandwidth, r.uplinkLatency))
  const down = spec.racks.map((r) => add(`${r.name}.down`, r.uplinkBandwidth, 0))
  const sites = Math.max(0, ...spec.racks.map((r) => r.site + 1))
  const wan: number[][] = Array.from({ length: sites }, () => new Array<number>(sites).fill(-1))
  for (let a = 0; a < sites; a++)
    for (let b = 0; b < sites; b++) {
      if (a === b) continue
      const bw = spec.siteBandwidth?.[a]?.[b]
      if (bw === undefined)
        throw new UsageError(
          'SIM_MISSING_SITE_LINK',
          `no bandwidth from site ${a} to site ${b}: give siteBandwidth`,
        )
      wan[a]![b] = add(`site${a}->site${b}`, bw, spec.siteLatency?.[a]?.[b] ?? 0)
    }
  const rackOf = (node: number) => spec.nodes[node]!.rack
  const path = (a: number, b: number): number[] => {
    if (a === b) return []
    const ra = rackOf(a)
    const rb = rackOf(b)
    if (ra === rb) return [tx[a]!, rx[b]!]
    const sa = spec.racks[ra]!.site
    const sb = spec.racks[rb]!.site
    if (sa === sb) return [tx[a]!, up[ra]!, down[rb]!, rx[b]!]
    return [tx[a]!, up[ra]!, wan[sa]![sb]!, down[rb]!, rx[b]!]
  }
  const siteOf = (node: number) => spec.racks[rackOf(node)]!.site
  const pathLatency = spec.pathLatency
  if (pathLatency)
    for (let a = 0; a < sites; a++)
      for (let b = 0; b < sites; b++)
        if (!((pathLatency[a]?.[b] ?? -1) >= 0))
          throw new UsageError(
            'SIM_BAD_LATENCY',
            `path latency from site ${a} to site ${b} is ${pathLatency[a]?.[b]}`,
          )
  const latency = pathLatency
    ? (a: number, b: number) => (a === b ? 0 : pathLatency[siteOf(a)]![siteOf(b)]!)
    : undefined
  const oneWay = latency ?? ((a: number, b: number) => path(a, b).reduce((s, l) => s + links[l]!.latency, 0))
  const window = spec.tcpWindowBytes
  return {
    links,
    rackOf,
    path,
    ...(latency ? { latency } : {}),
    ...(window === undefined
      ? {}
      : {
          // The round trip: out along a → b, back along b → a (acknowledgements), plus the base.
          rateCap: (a: number, b: number) => window / (oneWay(a, b) + oneWay(b, a) + (spec.baseRtt ?? 0)),
        }),
  }
}
