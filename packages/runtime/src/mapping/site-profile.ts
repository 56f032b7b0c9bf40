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

// Round-trip ping times between the four regions in ms (US East N. Virginia, US West
// N. California, Singapore, Ireland), from the 2017 public inter-region table quoted in
// docs/mapping.md. Latency here is one way (RTT / 2).
const EC2_RTT_MS = [
  [0, 72.7, 216.7, 80.5],
  [71.6, 0, 174.0, 153.2],
  [216.7, 173.9, 0, 238.1],
  [80.5, 153.2, 239.0, 0],
]
/** Intra-region one-way latency (s) and bandwidth (B/s): a 0.5 ms RTT and 10 Gbit/s instances. */
const EC2_INTRA = { latency: 0.25e-3, bandwidth: 1.25e9 }
/**
 * Cross-region bandwidth of one TCP stream: window / RTT with a 16 MiB window (Linux's default
 * tcp_rmem maximum of 6 MiB is raised on tuned hosts; docs/mapping.md gives the reasoning).
 */
const EC2_WINDOW_BYTES = 16 * 2 ** 20

/**
 * The built-in `ec2-4` profile: the four EC2 regions of Zhou & He's measurements (US East,
 * US West, Singapore, Ireland). Numbers and sources: docs/mapping.md.
 */
export function ec2FourRegions(): SiteProfile {
  const latency = EC2_RTT_MS.map((row, s) =>
    row.map((rtt, t) => (s === t ? EC2_INTRA.latency : rtt / 2 / 1000)),
  )
  const bandwidth = EC2_RTT_MS.map((row, s) =>
    row.map((rtt, t) => (s === t ? EC2_INTRA.bandwidth : EC2_WINDOW_BYTES / (rtt / 1000))),
  )
  return {
    name: 'ec2-4',
    sites: ['us-east', 'us-west', 'singapore', 'ireland'],
    latency,
    bandwidth,
    coordinates: [
      sphereCoordinates(38.9, -77.4),
      sphereCoordinates(37.4, -121.9),
      sphereCoordinates(1.3, 103.8),
      sphereCoordinates(53.3, -6.3),
    ],
  }
}

/** Built-in site profiles by name. */
export const builtInProfiles: Record<string, () => SiteProfile> = { 'ec2-4': ec2FourRegions }

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
