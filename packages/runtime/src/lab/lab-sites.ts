import { UsageError } from '../errors.ts'
import type { SiteProfile } from '../mapping/site-profile.ts'

/**
 * Sites of a lab: rack s is site s (its hosts are the site's nodes). A frame from a host of site
 * s to a host of site t waits `latencyMs[s][t]` in the delay line (the diagonal: between hosts of
 * one site), and the core shapes the path s → t to `mbps[s][t]` (s ≠ t). Links may be asymmetric.
 */
export interface LabSites {
  names: string[]
  /** One-way latency from a host of site s to a host of site t, ms; the diagonal is intra-site. */
  latencyMs: number[][]
  /** Rate of the path from site s to site t (s ≠ t), Mbit/s; the diagonal is ignored (host links carry the node rate). */
  mbps: number[][]
  /** Site coordinates (for the geo planner's grouping), carried into a calibrated profile. */
  coordinates: number[][]
}

/** Checks `sites` against a lab of `racks` racks; a problem is `LAB_BAD_SPEC` naming the entry. */
export function checkLabSites(sites: LabSites, racks: number): void {
  const m = sites.names.length
  const bad = (what: string) => {
    throw new UsageError('LAB_BAD_SPEC', `sites: ${what}`)
  }
  if (m !== racks) bad(`${m} sites for ${racks} racks (each site is one rack)`)
  for (const [key, matrix, ok] of [
    ['latencyMs', sites.latencyMs, (v: number) => v >= 0 && v <= 10_000],
    ['mbps', sites.mbps, (v: number) => v > 0 && v <= 100_000],
  ] as const) {
    if (matrix.length !== m || matrix.some((r) => r.length !== m)) bad(`${key} must be ${m} × ${m}`)
    for (const [s, row] of matrix.entries())
      for (const [t, v] of row.entries())
        if (!(Number.isFinite(v) && ((s === t && key === 'mbps') || ok(v))))
          bad(`${key}[${s}][${t}] = ${v} is out of range`)
  }
  if (sites.coordinates.length !== m) bad(`${sites.coordinates.length} coordinates for ${m} sites`)
}

/** How a site profile is turned into a lab ({@link labSitesFromProfile}). */
export interface ProfileScale {
  /** Multiplies every bandwidth (so two cores can fill the links). */
  rateScale: number
  /** Multiplies every latency (default 1: the profile's own delays). */
  latencyScale?: number
}

/**
 * The lab shape of a site profile: one rack of `hostsPerSite` hosts per site, pair rates =
 * bandwidth × 8 × `rateScale` (Mbit/s), latencies × `latencyScale`, node links at the fastest
 * intra-site bandwidth × `rateScale`, uplinks at the node rate × hosts (never the bottleneck).
 */
export function labSitesFromProfile(
  profile: SiteProfile,
  hostsPerSite: number,
  scale: ProfileScale,
): { sites: LabSites; racks: number; hostsPerRack: number; nodeMbps: number; uplinkMbps: number } {
  const mbps = (bytesPerSecond: number) => (bytesPerSecond * 8 * scale.rateScale) / 1e6
  const m = profile.sites.length
  const nodeMbps = Math.max(...profile.bandwidth.map((row, s) => mbps(row[s]!)))
  return {
    sites: {
      names: [...profile.sites],
      latencyMs: profile.latency.map((row) => row.map((l) => l * 1000 * (scale.latencyScale ?? 1))),
      mbps: profile.bandwidth.map((row) => row.map(mbps)),
      coordinates: profile.coordinates.map((c) => [...c]),
    },
    racks: m,
    hostsPerRack: hostsPerSite,
    nodeMbps,
    uplinkMbps: nodeMbps * hostsPerSite,
  }
}

/**
 * The delay line's table for the TAP of a host of site `from`: destination /24 (a rack's
 * subnet, `10.213.X`) → delay ms. Destinations outside the lab's racks (the driver) are not delayed.
 */
export function delayTable(sites: LabSites, from: number, subnetOf: (rack: number) => string) {
  return Object.fromEntries(sites.names.map((_, t) => [subnetOf(t), sites.latencyMs[from]![t]!]))
}

/**
 * `tc` argv that shape, on the core's link toward site `to` (device `dev`), the traffic from
 * each other site s to `mbps[s][to]`: one htb class per source site, selected by source subnet;
 * everything else (the driver's traffic) takes the default class at `defaultMbps`.
 */
export function sitePairShaping(
  sites: LabSites,
  core: string,
  dev: string,
  to: number,
  defaultMbps: number,
  subnetOf: (rack: number) => string,
): string[][] {
  const tc = (...args: string[]) => ['tc', '-n', core, ...args]
  const rate = (mbps: number) => `${Math.round(mbps * 1000)}kbit`
  const cmds = [
    tc('qdisc', 'add', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '1'),
    tc('class', 'add', 'dev', dev, 'parent', '1:', 'classid', '1:1', 'htb', 'rate', rate(defaultMbps)),
  ]
  sites.names.forEach((_, s) => {
    if (s === to) return
    const r = rate(sites.mbps[s]![to]!)
    const classid = `1:${(10 + s).toString(16)}`
    cmds.push(
      tc('class', 'add', 'dev', dev, 'parent', '1:', 'classid', classid, 'htb', 'rate', r, 'ceil', r),
      tc(
        'filter',
        'add',
        'dev',
        dev,
        'parent',
        '1:',
        'protocol',
        'ip',
        'prio',
        '1',
        'u32',
        'match',
        'ip',
        'src',
        `${subnetOf(s)}.0/24`,
        'flowid',
        classid,
      ),
    )
  })
  return cmds
}

/** TCP payload per htb byte: htb counts whole 1514-byte frames, each carrying 1448 bytes of payload. */
export const PAYLOAD_SHARE = 1448 / 1514

/**
 * The site profile a lab was configured with (what `lab calibrate` should find): latency =
 * the configured one-way delay (s), bandwidth = the payload rate of the path (B/s: the site
 * pair's rate, capped by the node links, × {@link PAYLOAD_SHARE}; within a site the node rate),
 * nodes = hosts per site.
 */
export function labProfile(spec: {
  id: number
  hostsPerRack: number
  nodeMbps: number
  sites?: LabSites
}): SiteProfile {
  const sites = spec.sites
  if (!sites) throw new UsageError('LAB_NEEDS_SITES', `lab ${spec.id} has no sites`)
  const payload = (mbps: number) => (mbps * 1e6 * PAYLOAD_SHARE) / 8
  return {
    name: `lab-${spec.id}-configured`,
    sites: [...sites.names],
    latency: sites.latencyMs.map((row) => row.map((ms) => ms / 1000)),
    bandwidth: sites.mbps.map((row, s) =>
      row.map((mbps, t) => payload(s === t ? spec.nodeMbps : Math.min(mbps, spec.nodeMbps))),
    ),
    coordinates: sites.coordinates.map((c) => [...c]),
    nodes: sites.names.map(() => spec.hostsPerRack),
  }
}
