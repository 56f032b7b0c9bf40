import type { ClusterSpec } from './cluster-network.ts'
import { LAB_BASE_RTT_S, LAB_PAYLOAD_EFFICIENCY, labWindowBytes } from './lab-cluster.ts'

/** A network lab with sites (rack s = site s), as the simulator needs it: `LabSpec` fits. */
export interface LabSitesShape {
  hostsPerRack: number
  nodeMbps: number
  uplinkMbps: number
  tcpBufferKb?: number
  sites: {
    /** One-way delay from a host of site s to a host of site t (the diagonal: within a site), ms. */
    latencyMs: number[][]
    /** Rate of the core's path from site s to site t (s ≠ t), Mbit/s. */
    mbps: number[][]
  }
}

/**
 * The simulator's model of a run placed on a lab with sites: node i is rank i, on host
 * `nodeOf[i]` (hosts rack-major, rack s = site s). As the lab configures it: host links at the
 * node rate and uplinks at theirs (each direction), each ordered site pair's path at its own rate
 * (the core's htb class per source site), every rate as TCP payload (× 1448/1514), and each path's
 * one-way latency the (source site, destination site) delay — the delay line holds a frame once,
 * within a site too — plus the lab's window limit when socket buffers are limited.
 */
export function placedLabClusterSpec(lab: LabSitesShape, nodeOf: readonly number[]): ClusterSpec {
  const payload = (mbps: number) => ((mbps * 1e6) / 8) * LAB_PAYLOAD_EFFICIENCY
  const sites = lab.sites.latencyMs.length
  return {
    nodes: nodeOf.map((host, i) => ({
      name: `rank${i}@h${host}`,
      rack: Math.floor(host / lab.hostsPerRack),
      nicBandwidth: payload(lab.nodeMbps),
      nicLatency: 0,
    })),
    racks: Array.from({ length: sites }, (_, s) => ({
      name: `site-${s}`,
      site: s,
      uplinkBandwidth: payload(lab.uplinkMbps),
      uplinkLatency: 0,
    })),
    siteBandwidth: lab.sites.mbps.map((row) => row.map(payload)),
    pathLatency: lab.sites.latencyMs.map((row) => row.map((ms) => ms / 1000)),
    baseRtt: LAB_BASE_RTT_S,
    ...(lab.tcpBufferKb === undefined ? {} : { tcpWindowBytes: labWindowBytes(lab.tcpBufferKb) }),
  }
}
