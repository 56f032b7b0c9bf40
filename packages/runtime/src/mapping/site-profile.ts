import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { UsageError } from '../errors.ts'

/**
 * The network between M sites in the α-β model: `latency[s][t]` seconds per message and
 * `bandwidth[s][t]` bytes per second from a node of site s to a node of site t; the diagonal
 * holds the intra-site figures. Links may be asymmetric. `coordinates` place the sites (any
 * dimension; the planner groups sites by K-means on them) and `nodes` is each site's node count
 * (one process per node). A plain object, so a server can validate it with zod.
 */
export interface SiteProfile {
  name: string
  sites: string[]
  latency: number[][]
  bandwidth: number[][]
  coordinates: number[][]
  /** Nodes per site; absent = the processes spread evenly (the built-in profiles leave it open). */
  nodes?: number[]
}

/** Site coordinates from latitude and longitude in degrees: a point on the unit sphere, so K-means sees Singapore and California as neighbours across the Pacific. */
export function sphereCoordinates(latDeg: number, lonDeg: number): number[] {
  const lat = (latDeg * Math.PI) / 180
  const lon = (lonDeg * Math.PI) / 180
  return [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)]
}

/** Great-circle distance in km between two points given as [latitude, longitude] in degrees (haversine, Earth radius 6,371 km). */
export function greatCircleKm(a: readonly [number, number], b: readonly [number, number]): number {
  const rad = (deg: number) => (deg * Math.PI) / 180
  const [lat1, lon1] = [rad(a[0]), rad(a[1])]
  const [lat2, lon2] = [rad(b[0]), rad(b[1])]
  const h =
    Math.sin((lat2 - lat1) / 2) ** 2 + Math.cos(lat1) * Math.cos(lat2) * Math.sin((lon2 - lon1) / 2) ** 2
  return 2 * 6371 * Math.asin(Math.sqrt(h))
}

/** One measured link in the paper's units: MB/s (10⁶ bytes per second) and seconds one way. */
export interface PaperLink {
  mbPerS: number
  latencyS: number
}

/**
 * The measurements a built-in profile is made from, in the paper's units. `hub` is the one
 * region the paper measured from: `fromHub[t]` is the link hub ↔ t (used both ways, the paper
 * giving one figure per pair); `intraMbPerS[s]` the measured intra-region bandwidth of s where the
 * paper has one; `intraLatencyS` the intra-region latency.
 */
export interface PaperMeasurements {
  name: string
  sites: string[]
  /** [latitude, longitude] in degrees of each region's data centres. */
  latLon: [number, number][]
  hub: number
  fromHub: Record<number, PaperLink>
  intraMbPerS: Record<number, number>
  intraLatencyS: number
}

/**
 * A profile from hub-only measurements, by the rules docs/mapping.md ("Built-in site profiles")
 * states:
 * - measured links (hub ↔ t) as measured, the same both ways;
 * - an unmeasured pair (s, t), neither of them the hub, takes bandwidth and latency of the
 *   measured hub pair whose great-circle distance is closest to its own (the paper's observation
 *   that cross-region performance follows distance; its tables class pairs as short, medium, long);
 * - a region without a measured intra-region bandwidth takes the lowest measured one;
 * - MB/s × 10⁶ = bytes/s, latencies in seconds.
 */
function profileFromMeasurements(m: PaperMeasurements): SiteProfile {
  const n = m.sites.length
  const measured = Object.keys(m.fromHub).map(Number)
  const km = (s: number, t: number) => greatCircleKm(m.latLon[s]!, m.latLon[t]!)
  const link = (s: number, t: number): PaperLink => {
    if (s === m.hub) return m.fromHub[t]!
    if (t === m.hub) return m.fromHub[s]!
    const d = km(s, t)
    const nearest = measured.reduce((a, b) =>
      Math.abs(km(m.hub, b) - d) < Math.abs(km(m.hub, a) - d) ? b : a,
    )
    return m.fromHub[nearest]!
  }
  const lowestIntra = Math.min(...Object.values(m.intraMbPerS))
  const latency: number[][] = []
  const bandwidth: number[][] = []
  for (let s = 0; s < n; s++) {
    latency.push([])
    bandwidth.push([])
    for (let t = 0; t < n; t++) {
      if (s === t) {
        latency[s]!.push(m.intraLatencyS)
        bandwidth[s]!.push((m.intraMbPerS[s] ?? lowestIntra) * 1e6)
      } else {
        const l = link(s, t)
        latency[s]!.push(l.latencyS)
        bandwidth[s]!.push(l.mbPerS * 1e6)
      }
    }
  }
  return {
    name: m.name,
    sites: [...m.sites],
    latency,
    bandwidth,
    coordinates: m.latLon.map(([lat, lon]) => sphereCoordinates(lat, lon)),
  }
}

/**
 * Zhou & He's EC2 measurements (c3.8xlarge instances). Table 1, row c3.8xlarge: 148 MB/s within
 * US East, 204 within Singapore (6.6 between them). Table 2: from US East to US West 21 MB/s and
 * 0.16, to Ireland 19 and 0.17, to Singapore 6.6 and 0.35 — latencies printed as "ms", read here
 * as seconds, one way (docs/mapping.md: as milliseconds they would be 100 times below light's
 * time through fibre). Intra-region latency: the tables give none for EC2, so the paper's only
 * intra-region latency, Table 3's 0.82 ms (Azure, within East US), stands in.
 */
export const EC2_REGIONS: PaperMeasurements = {
  name: 'ec2-4',
  sites: ['us-east', 'us-west', 'singapore', 'ireland'],
  latLon: [
    [38.9, -77.4], // N. Virginia
    [37.4, -121.9], // N. California
    [1.3, 103.8],
    [53.3, -6.3], // Dublin
  ],
  hub: 0,
  fromHub: {
    1: { mbPerS: 21, latencyS: 0.16 },
    2: { mbPerS: 6.6, latencyS: 0.35 },
    3: { mbPerS: 19, latencyS: 0.17 },
  },
  intraMbPerS: { 0: 148, 2: 204 },
  intraLatencyS: 0.82e-3,
}

/**
 * Zhou & He's Azure measurements (Standard D2 instances), Table 3: within East US 62 MB/s and
 * 0.82 ms, East US to West Europe 2.9 MB/s and 42 ms, to Japan East 1.3 MB/s and 77 ms, all read
 * as one way (as round trips the two cross-region ones would beat light in fibre).
 */
export const AZURE_REGIONS: PaperMeasurements = {
  name: 'azure-3',
  sites: ['east-us', 'west-europe', 'japan-east'],
  latLon: [
    [37.37, -79.82], // Virginia
    [52.37, 4.9], // the Netherlands
    [35.68, 139.77], // Tokyo
  ],
  hub: 0,
  fromHub: {
    1: { mbPerS: 2.9, latencyS: 42e-3 },
    2: { mbPerS: 1.3, latencyS: 77e-3 },
  },
  intraMbPerS: { 0: 62 },
  intraLatencyS: 0.82e-3,
}

/**
 * The built-in `ec2-4` profile: the four EC2 regions of Zhou & He's experiments (US East,
 * US West, Singapore, Ireland) from their Tables 1 and 2 ({@link EC2_REGIONS}). Measured:
 * US East ↔ each other region (21, 6.6, 19 MB/s; 0.16, 0.35, 0.17 s one way) and intra-region
 * bandwidth in US East (148 MB/s) and Singapore (204 MB/s). Filled by rule: US West ↔ Ireland
 * takes US East ↔ Ireland's figures, US West ↔ Singapore and Singapore ↔ Ireland US East ↔
 * Singapore's (the measured pair nearest in great-circle distance); US West and Ireland take the
 * lowest measured intra-region bandwidth, 148 MB/s; every intra-region latency is Table 3's
 * 0.82 ms. No `nodes`: at 64 processes the even spread is the paper's 16 instances per region.
 * Sources and rules: docs/mapping.md, "Built-in site profiles".
 */
export function ec2FourRegions(): SiteProfile {
  return profileFromMeasurements(EC2_REGIONS)
}

/**
 * The built-in `azure-3` profile: East US, West Europe and Japan East from Zhou & He's Table 3
 * ({@link AZURE_REGIONS}). Measured: within East US (62 MB/s, 0.82 ms) and East US ↔ West Europe
 * (2.9 MB/s, 42 ms) and ↔ Japan East (1.3 MB/s, 77 ms), one way. Filled by the same rules as
 * `ec2-4`: West Europe ↔ Japan East takes East US ↔ Japan East's figures (nearest distance);
 * West Europe and Japan East take East US's intra-region figures.
 */
export function azureThreeRegions(): SiteProfile {
  return profileFromMeasurements(AZURE_REGIONS)
}

/** Built-in site profiles by name. */
export const builtInProfiles: Record<string, () => SiteProfile> = {
  'ec2-4': ec2FourRegions,
  'azure-3': azureThreeRegions,
}

/** A built-in profile by name, else `PROFILE_UNKNOWN`. */
export function builtInProfile(name: string): SiteProfile {
  const make = builtInProfiles[name]
  if (!make)
    throw new UsageError(
      'PROFILE_UNKNOWN',
      `no built-in site profile "${name}" (built in: ${Object.keys(builtInProfiles).join(', ')}; or pass a profile JSON file)`,
    )
  return make()
}

/** Checks a profile's shapes and values; a problem is `BAD_PROFILE` naming the entry. */
export function validateProfile(p: SiteProfile): void {
  const m = p.sites.length
  const bad = (what: string) => {
    throw new UsageError('BAD_PROFILE', `profile "${p.name}": ${what}`)
  }
  if (m < 1) bad('no sites')
  for (const [key, matrix] of [
    ['latency', p.latency],
    ['bandwidth', p.bandwidth],
  ] as const) {
    if (
      !Array.isArray(matrix) ||
      matrix.length !== m ||
      matrix.some((r) => !Array.isArray(r) || r.length !== m)
    )
      bad(`${key} must be ${m} × ${m} (one row and column per site)`)
    for (const [s, row] of matrix.entries())
      for (const [t, v] of row.entries()) {
        const ok = key === 'latency' ? Number.isFinite(v) && v >= 0 : Number.isFinite(v) && v > 0
        if (!ok) bad(`${key}[${s}][${t}] = ${v} (${key === 'latency' ? 'seconds ≥ 0' : 'bytes/s > 0'})`)
      }
  }
  if (p.coordinates.length !== m) bad(`${p.coordinates.length} coordinates for ${m} sites`)
  const dim = p.coordinates[0]?.length ?? 0
  p.coordinates.forEach((c, s) => {
    if (c.length !== dim || dim === 0 || !c.every(Number.isFinite))
      bad(`coordinates[${s}] must be ${dim || 'at least 1'} finite numbers`)
  })
  if (p.nodes) {
    if (p.nodes.length !== m) bad(`${p.nodes.length} node counts for ${m} sites`)
    p.nodes.forEach((n, s) => {
      if (!Number.isInteger(n) || n < 0) bad(`nodes[${s}] = ${n} (a non-negative integer)`)
    })
  }
}

const matrixSchema = z.array(z.array(z.number()))

/** The JSON shape of a {@link SiteProfile} (shapes and ranges are checked by {@link validateProfile}). */
export const siteProfileSchema = z.object({
  name: z.string(),
  sites: z.array(z.string()).min(1),
  latency: matrixSchema,
  bandwidth: matrixSchema,
  coordinates: matrixSchema,
  nodes: z.array(z.number()).optional(),
})

/**
 * A built-in profile by name, else a profile JSON file ({@link SiteProfile}: latency in seconds,
 * bandwidth in bytes/s). Coded errors: `PROFILE_UNKNOWN` (neither), `BAD_PROFILE`.
 */
export async function loadSiteProfile(nameOrFile: string): Promise<SiteProfile> {
  if (builtInProfiles[nameOrFile]) return builtInProfile(nameOrFile)
  let text: string
  try {
    text = await readFile(nameOrFile, 'utf8')
  } catch {
    return builtInProfile(nameOrFile) // not a file either: PROFILE_UNKNOWN lists the built-in ones
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new UsageError('BAD_PROFILE', `${nameOrFile}: not JSON (${(err as Error).message})`)
  }
  const parsed = siteProfileSchema.safeParse(json)
  if (!parsed.success)
    throw new UsageError(
      'BAD_PROFILE',
      `${nameOrFile}: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`,
    )
  validateProfile(parsed.data)
  return parsed.data
}
