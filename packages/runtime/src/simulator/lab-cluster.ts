import type { ClusterSpec } from './cluster-network.ts'

/**
 * What the network lab taught the simulator (docs/reproductions.md, "Network lab"):
 *
 * - `tc` shapes whole Ethernet frames, so TCP moves payload at MSS / frame = 1448 / 1514 of the
 *   rate (20 B IP, 32 B TCP with timestamps, 14 B Ethernet per 1448 B segment).
 * - A connection keeps at most about `LAB_WINDOW_PER_BUFFER` × the socket buffer limit in flight
 *   (the kernel spends the rest of the buffer on skb overhead), so with buffer B and round trip
 *   RTT it moves at most that window per RTT.
 */
export const LAB_PAYLOAD_EFFICIENCY = 1448 / 1514
export const LAB_WINDOW_PER_BUFFER = 0.5
/** Round trip of a lab hop with no added delay (veths, bridges, the stacks), seconds. */
export const LAB_BASE_RTT_S = 100e-6

/** A lab's shape and rates, as the simulator needs them. */
export interface LabNetworkShape {
  racks: number
  hostsPerRack: number
  nodeMbps: number
  uplinkMbps: number
  delayMs?: number
  tcpBufferKb?: number
}

/**
 * The simulator's model of the first `hosts` hosts of a lab (rack-major, as the lab numbers
 * them): payload rates, the delay once per hop (on each host's outgoing link, as the lab
 * puts it), and the window limit when socket buffers are limited.
 */
export function labClusterSpec(lab: LabNetworkShape, hosts: number): ClusterSpec {
  const bytesPerSecond = (mbps: number) => ((mbps * 1e6) / 8) * LAB_PAYLOAD_EFFICIENCY
  const delay = (lab.delayMs ?? 0) / 1000
  const racks = Math.ceil(hosts / lab.hostsPerRack)
  return {
    nodes: Array.from({ length: hosts }, (_, i) => ({
      name: `h${i}`,
      rack: Math.floor(i / lab.hostsPerRack),
      nicBandwidth: bytesPerSecond(lab.nodeMbps),
      nicLatency: delay,
    })),
    racks: Array.from({ length: racks }, (_, r) => ({
      name: `rack-${r}`,
      site: 0,
      uplinkBandwidth: bytesPerSecond(lab.uplinkMbps),
      uplinkLatency: 0,
    })),
    baseRtt: LAB_BASE_RTT_S,
    ...(lab.tcpBufferKb === undefined
      ? {}
      : { tcpWindowBytes: lab.tcpBufferKb * 1024 * LAB_WINDOW_PER_BUFFER }),
  }
}
