import type { ClusterSpec } from './cluster-network.ts'

/**
 * What the network lab taught the simulator (docs/lab.md, "What the lab taught the simulator"):
 *
 * - `tc` shapes whole Ethernet frames, so TCP moves payload at MSS / frame = 1448 / 1514 of the
 *   rate (20 B IP, 32 B TCP with timestamps, 14 B Ethernet per 1448 B segment).
 * - A connection keeps only a fraction of its socket buffer limit B in flight (the kernel counts
 *   skb overhead against the buffer and advertises part of the rest), so it moves at most that
 *   window per round trip. The fraction grows with B; `LAB_WINDOW_FRACTION` is measured on this
 *   machine's kernel (6.18) with 2 hosts, 5 ms per hop and 1 MiB chains (same section)
 *   and interpolated in log₂ B, clamped at the ends.
 */
export const LAB_PAYLOAD_EFFICIENCY = 1448 / 1514
/** [buffer KiB, bytes in flight ÷ buffer], measured: window = rate × RTT of a window-bound chain. */
export const LAB_WINDOW_FRACTION: readonly (readonly [number, number])[] = [
  [8, 0.285],
  [16, 0.42],
  [32, 0.445],
  [64, 0.53],
]

/** Bytes a lab connection keeps in flight with socket buffers limited to `bufferKb` KiB. */
export function labWindowBytes(bufferKb: number): number {
  const table = LAB_WINDOW_FRACTION
  const x = Math.log2(bufferKb)
  let fraction = table[0]![1]
  if (bufferKb >= table.at(-1)![0]) fraction = table.at(-1)![1]
  else
    for (let i = 1; i < table.length; i++) {
      const [b0, f0] = table[i - 1]!
      const [b1, f1] = table[i]!
      if (bufferKb <= b1 && bufferKb >= b0) {
        fraction = f0 + ((f1 - f0) * (x - Math.log2(b0))) / (Math.log2(b1) - Math.log2(b0))
        break
      }
    }
  return bufferKb * 1024 * fraction
}
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
    ...(lab.tcpBufferKb === undefined ? {} : { tcpWindowBytes: labWindowBytes(lab.tcpBufferKb) }),
  }
}
