import { UsageError } from '../errors.ts'
import { checkLabSites, delayTable, type LabSites, sitePairShaping } from './lab-sites.ts'

/**
 * A network lab on this machine: `racks × hostsPerRack` hosts, each a network namespace with its
 * own address and a veth into its rack's bridge; racks joined through a core namespace; the
 * machine's own namespace reaches the lab through one veth into the core (the driver's link).
 */
export interface LabSpec {
  /** Lab number 0–7: picks the name prefix `cb<id>-` and the address block 10.213.(32·id).0/19. */
  id: number
  racks: number
  hostsPerRack: number
  /** Rate of every node link, each direction, Mbit/s. */
  nodeMbps: number
  /** Rate of every rack uplink, each direction, Mbit/s. */
  uplinkMbps: number
  /** One-way delay added on every node's outgoing link (netem), ms: every hop costs it once, an RTT twice. */
  delayMs?: number
  /** Per-host TCP buffer limit (`net.ipv4.tcp_rmem` / `tcp_wmem` max), KiB; Linux defaults when absent. */
  tcpBufferKb?: number
  /** Queue of every shaped link, KiB (a switch port's buffer); htb's default 1000 frames when absent. */
  queueKb?: number
  /**
   * false: hosts keep TCP's congestion window across idle periods (`tcp_slow_start_after_idle=0`,
   * as tuned hosts do), so each K-means iteration does not restart slow start. Default: Linux's (true).
   */
  slowStartAfterIdle?: boolean
  /**
   * Sites (rack s = site s) with site-to-site delays and rates: frames wait the (source site,
   * destination site) latency in the delay line, the core shapes each site pair's path.
   * Replaces `delayMs`.
   */
  sites?: LabSites
}

/** One lab host: where a worker runs. */
export interface LabHost {
  /** Network namespace name. */
  netns: string
  address: string
  /** Rack name, as a topology would give it. */
  rack: string
  /** Site name, when the lab has sites. */
  site?: string
}

/** Every name and address of a lab, derived from its spec alone (so cleanup needs no state). */
export interface LabPlan {
  spec: LabSpec
  /** Prefix of every namespace and root-namespace link the lab owns. */
  prefix: string
  /** Address block the lab owns, CIDR. */
  block: string
  core: string
  rackNamespaces: string[]
  /** Hosts in topology order: rack 0's hosts, then rack 1's, … */
  hosts: LabHost[]
  /** The root-namespace end of the driver's link, and its address (the driver listens there). */
  driverLink: string
  driverAddress: string
  /** Shell-free command lines (argv) that build the namespaces, racks and core, in order. */
  commands: string[][]
  /** Then, once the delay line (if any) runs: the hosts' links, addresses and limits. */
  hostCommands: string[][]
  /**
   * With a delay: the TAP pairs the delay line (`scripts/lab-delay-line.py`, run in the core
   * namespace) creates, host end then rack end, and the delay of the host ends' egress: one
   * delay, or with sites a table per host TAP (destination /24 → ms; other destinations undelayed).
   */
  delayLine: { delayMs: number; taps: string[]; table?: Record<string, Record<string, number>> } | null
}

/** Address block shared by every lab: labs own disjoint /19s of it. */
export const LAB_BLOCK_PREFIX = '10.213'
/** Prefix of every lab's namespaces and links: `cb<id>-`. */
export const LAB_NAME_PREFIX = 'cb'
export const MAX_LAB_ID = 7
const MAX_RACKS = 30
const MAX_HOSTS_PER_RACK = 250

/** The name prefix of lab `id`. */
export function labPrefix(id: number): string {
  return `${LAB_NAME_PREFIX}${id}-`
}

function checkSpec(s: LabSpec): void {
  const int = (name: string, v: number, lo: number, hi: number) => {
    if (!Number.isInteger(v) || v < lo || v > hi)
      throw new UsageError('LAB_BAD_SPEC', `${name} must be an integer in [${lo}, ${hi}], got ${v}`)
  }
  int('lab id', s.id, 0, MAX_LAB_ID)
  int('racks', s.racks, 1, MAX_RACKS)
  int('hosts per rack', s.hostsPerRack, 1, MAX_HOSTS_PER_RACK)
  for (const [name, v] of [
    ['node rate (Mbit/s)', s.nodeMbps],
    ['uplink rate (Mbit/s)', s.uplinkMbps],
  ] as const)
    if (!(Number.isFinite(v) && v > 0 && v <= 100_000))
      throw new UsageError('LAB_BAD_SPEC', `${name} must be in (0, 100000], got ${v}`)
  if (s.delayMs !== undefined && !(s.delayMs >= 0 && s.delayMs <= 10_000))
    throw new UsageError('LAB_BAD_SPEC', `delay must be in [0, 10000] ms, got ${s.delayMs}`)
  if (s.tcpBufferKb !== undefined && !(Number.isInteger(s.tcpBufferKb) && s.tcpBufferKb >= 4))
    throw new UsageError('LAB_BAD_SPEC', `TCP buffer must be an integer ≥ 4 KiB, got ${s.tcpBufferKb}`)
  if (s.sites) {
    checkLabSites(s.sites, s.racks)
    if ((s.delayMs ?? 0) > 0)
      throw new UsageError('LAB_BAD_SPEC', 'a lab with sites takes its delays from them: drop the delay')
  }
}

/**
 * `tc` argv shaping egress of `dev` in `netns` to `mbps` (htb counts whole frames, a GSO frame
 * per segment). With `queueKb` the class queues at most that many KiB (bfifo), as a switch
 * port's buffer would; without it htb's default leaf holds 1000 frames, GSO frames included.
 */
function shape(netns: string, dev: string, mbps: number, queueKb?: number): string[][] {
  const rate = `${Math.round(mbps * 1000)}kbit`
  const tc = (...args: string[]) => ['tc', '-n', netns, ...args]
  const cmds = [
    tc('qdisc', 'add', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '1'),
    tc('class', 'add', 'dev', dev, 'parent', '1:', 'classid', '1:1', 'htb', 'rate', rate, 'ceil', rate),
  ]
  if (queueKb !== undefined)
    cmds.push(
      tc('qdisc', 'add', 'dev', dev, 'parent', '1:1', 'handle', '10:', 'bfifo', 'limit', `${queueKb}kb`),
    )
  return cmds
}

/**
 * Plans lab `spec`: namespaces `cb<id>-core`, `cb<id>-r<R>` (rack bridge and router) and
 * `cb<id>-r<R>h<H>` (hosts), addresses `10.213.(32·id + R).(H + 1)`, and the commands that build
 * it. Rates shape node links both ways (the host's eth0 and the rack end of its link) and
 * uplinks both ways (the rack's `uplink` and the core's `r<R>`); the host link of the driver is
 * not shaped. A host's link is a veth pair, or with a delay a TAP pair joined by the delay line,
 * which holds the host's outgoing frames `delayMs` (this machine's kernel has no netem, and the
 * delay line behaves the same on every kernel).
 */
export function planLab(spec: LabSpec): LabPlan {
  checkSpec(spec)
  const prefix = labPrefix(spec.id)
  const base = 32 * spec.id
  const linkNet = `${LAB_BLOCK_PREFIX}.${base + 31}`
  const core = `${prefix}core`
  const driverLink = `${prefix}host`
  const cmds: string[][] = []
  const ns = (name: string, ...args: string[]) => ['ip', '-n', name, ...args]
  const sysctl = (name: string, kv: string) => ['ip', 'netns', 'exec', name, 'sysctl', '-q', '-w', kv]
  cmds.push(
    ['ip', 'netns', 'add', core],
    ns(core, 'link', 'set', 'lo', 'up'),
    sysctl(core, 'net.ipv4.ip_forward=1'),
  )
  // The driver's link: root namespace .253 ↔ core .254, a route for the whole block through it.
  cmds.push(
    ['ip', 'link', 'add', driverLink, 'type', 'veth', 'peer', 'name', 'host', 'netns', core],
    ['ip', 'addr', 'add', `${linkNet}.253/30`, 'dev', driverLink],
    ['ip', 'link', 'set', driverLink, 'up'],
    ns(core, 'addr', 'add', `${linkNet}.254/30`, 'dev', 'host'),
    ns(core, 'link', 'set', 'host', 'up'),
    ['ip', 'route', 'add', `${LAB_BLOCK_PREFIX}.${base}.0/19`, 'via', `${linkNet}.254`, 'dev', driverLink],
  )
  const rackNamespaces: string[] = []
  const hosts: LabHost[] = []
  const hostCmds: string[][] = []
  const sites = spec.sites
  const delayed = (spec.delayMs ?? 0) > 0 || sites !== undefined
  const taps: string[] = []
  const table: Record<string, Record<string, number>> = {}
  const subnetOf = (rack: number) => `${LAB_BLOCK_PREFIX}.${base + rack}`
  for (let r = 0; r < spec.racks; r++) {
    const rackNs = `${prefix}r${r}`
    const subnet = `${LAB_BLOCK_PREFIX}.${base + r}`
    rackNamespaces.push(rackNs)
    cmds.push(
      ['ip', 'netns', 'add', rackNs],
      ns(rackNs, 'link', 'set', 'lo', 'up'),
      sysctl(rackNs, 'net.ipv4.ip_forward=1'),
      ns(rackNs, 'link', 'add', 'br0', 'type', 'bridge'),
      ns(rackNs, 'addr', 'add', `${subnet}.254/24`, 'dev', 'br0'),
      ns(rackNs, 'link', 'set', 'br0', 'up'),
      // Uplink: rack `uplink` (.4R+2) ↔ core `r<R>` (.4R+1).
      ns(rackNs, 'link', 'add', 'uplink', 'type', 'veth', 'peer', 'name', `r${r}`, 'netns', core),
      ns(rackNs, 'addr', 'add', `${linkNet}.${4 * r + 2}/30`, 'dev', 'uplink'),
      ns(rackNs, 'link', 'set', 'uplink', 'up'),
      ns(core, 'addr', 'add', `${linkNet}.${4 * r + 1}/30`, 'dev', `r${r}`),
      ns(core, 'link', 'set', `r${r}`, 'up'),
      ns(rackNs, 'route', 'add', 'default', 'via', `${linkNet}.${4 * r + 1}`),
      ns(core, 'route', 'add', `${subnet}.0/24`, 'via', `${linkNet}.${4 * r + 2}`),
      ...shape(rackNs, 'uplink', spec.uplinkMbps, spec.queueKb),
      ...(sites
        ? sitePairShaping(sites, core, `r${r}`, r, spec.uplinkMbps, subnetOf)
        : shape(core, `r${r}`, spec.uplinkMbps, spec.queueKb)),
    )
    for (let h = 0; h < spec.hostsPerRack; h++) {
      const hostNs = `${prefix}r${r}h${h}`
      const address = `${subnet}.${h + 1}`
      const index = hosts.length
      hosts.push({ netns: hostNs, address, rack: `rack-${r}`, ...(sites ? { site: sites.names[r]! } : {}) })
      cmds.push(['ip', 'netns', 'add', hostNs], ns(hostNs, 'link', 'set', 'lo', 'up'))
      if (delayed) {
        // The delay line made TAPs a<i> (host end) and b<i> (rack end) in the core: move them.
        taps.push(`a${index}`, `b${index}`)
        if (sites) table[`a${index}`] = delayTable(sites, r, subnetOf)
        hostCmds.push(
          ns(core, 'link', 'set', `a${index}`, 'netns', hostNs),
          ns(hostNs, 'link', 'set', `a${index}`, 'name', 'eth0'),
          ns(core, 'link', 'set', `b${index}`, 'netns', rackNs),
          ns(rackNs, 'link', 'set', `b${index}`, 'name', `h${h}`),
        )
      } else
        hostCmds.push(
          ns(hostNs, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', `h${h}`, 'netns', rackNs),
        )
      hostCmds.push(
        ns(hostNs, 'addr', 'add', `${address}/24`, 'dev', 'eth0'),
        ns(hostNs, 'link', 'set', 'eth0', 'up'),
        ns(rackNs, 'link', 'set', `h${h}`, 'master', 'br0'),
        ns(rackNs, 'link', 'set', `h${h}`, 'up'),
        ns(hostNs, 'route', 'add', 'default', 'via', `${subnet}.254`),
        ...shape(hostNs, 'eth0', spec.nodeMbps, spec.queueKb),
        ...shape(rackNs, `h${h}`, spec.nodeMbps, spec.queueKb),
      )
      if (spec.slowStartAfterIdle === false)
        hostCmds.push(sysctl(hostNs, 'net.ipv4.tcp_slow_start_after_idle=0'))
      if (spec.tcpBufferKb !== undefined) {
        const max = spec.tcpBufferKb * 1024
        const min = Math.min(4096, max)
        // min default max: the default is the max too, so a socket starts at its limit.
        hostCmds.push(
          sysctl(hostNs, `net.ipv4.tcp_rmem=${min} ${max} ${max}`),
          sysctl(hostNs, `net.ipv4.tcp_wmem=${min} ${max} ${max}`),
        )
      }
    }
  }
  return {
    spec,
    prefix,
    block: `${LAB_BLOCK_PREFIX}.${base}.0/19`,
    core,
    rackNamespaces,
    hosts,
    driverLink,
    driverAddress: `${linkNet}.253`,
    commands: cmds,
    hostCommands: hostCmds,
    delayLine: delayed ? { delayMs: spec.delayMs ?? 0, taps, ...(sites ? { table } : {}) } : null,
  }
}
