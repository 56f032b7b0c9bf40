import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { CodebookError, UsageError } from '../errors.ts'
import type { SiteProfile } from '../mapping/site-profile.ts'
import { median } from '../median.ts'
import type { LabPlan } from './lab-plan.ts'

/** The ping-pong both ends run (the same path from src/lab and dist/lab). */
const PING_PONG_SCRIPT = fileURLToPath(new URL('../../scripts/lab-ping-pong.py', import.meta.url))
const BASE_PORT = 7100

/** Options of {@link calibrateLab}. */
export interface CalibrateOptions {
  /** 1-byte ping-pongs per site pair (their median RTT / 2 is the latency). Default 20. */
  pings?: number
  /** The large message, bytes (the paper: 8 MB). Default 8 MiB. */
  largeBytes?: number
  /** Timed large messages per pair after one untimed (their median gives the bandwidth). Default 1. */
  repeat?: number
}

/** What one sender measured toward one receiver. */
interface PairMeasurement {
  rttSeconds: number[]
  largeSeconds: number[]
  largeBytes: number
}

function inNetns(netns: string, args: string[]): ChildProcess {
  return spawn('nsenter', [`--net=/run/netns/${netns}`, 'python3', PING_PONG_SCRIPT, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Resolves with the child's stdout once it prints `until` (or exits 0 when `until` is null). */
function output(child: ChildProcess, what: string, until: string | null): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stdout!.on('data', (b: Buffer) => {
      out += b
      if (until !== null && out.includes(until)) resolve(out)
    })
    child.stderr!.on('data', (b: Buffer) => {
      err += b
    })
    child.on('error', (e) => reject(new CodebookError('LAB_CALIBRATE_FAILED', `${what}: ${e.message}`)))
    child.on('exit', (code) => {
      if (code === 0 && until === null) resolve(out)
      else reject(new CodebookError('LAB_CALIBRATE_FAILED', `${what} exited ${code}: ${err.trim()}`))
    })
  })
}

/**
 * Ping-pong from host 0 of each site to host 1 of another (or the same) site, all sites at once
 * (round r: site s → site (s + r) mod M, so every sender, receiver and site-pair path is used
 * once). Each pair on its own port and connection.
 */
async function measureRound(
  plan: LabPlan,
  round: number,
  o: Required<CalibrateOptions>,
): Promise<PairMeasurement[]> {
  const m = plan.spec.racks
  const perSite = plan.spec.hostsPerRack
  const host = (site: number, i: number) => plan.hosts[site * perSite + i]!
  const servers = Array.from({ length: m }, (_, s) => {
    const to = host((s + round) % m, 1)
    return inNetns(to.netns, ['serve', to.address, String(BASE_PORT + s)])
  })
  try {
    await Promise.all(servers.map((c, s) => output(c, `ping-pong server of site ${s}`, 'ready')))
    const outs = await Promise.all(
      servers.map((_, s) => {
        const to = host((s + round) % m, 1)
        const args = [
          'measure',
          to.address,
          String(BASE_PORT + s),
          String(o.pings),
          String(o.largeBytes),
          String(o.repeat),
        ]
        return output(inNetns(host(s, 0).netns, args), `ping-pong from site ${s} to ${to.netns}`, null)
      }),
    )
    return outs.map((out) => JSON.parse(out) as PairMeasurement)
  } finally {
    for (const c of servers) if (c.exitCode === null) c.kill('SIGKILL')
  }
}

/**
 * Calibrates a lab as the paper calibrates its sites: between one pair of hosts per ordered
 * site pair (and within each site), 1-byte ping-pongs give the latency (median RTT / 2) and an
 * 8 MB message answered by one byte gives the bandwidth (bytes / (time − RTT)), one direction at
 * a time so asymmetric rates show. Sites are the lab's sites, else its racks. The result is a
 * {@link SiteProfile} (`plan mapping --profile` reads it): nodes = hosts per site, coordinates
 * the lab's (a lab without sites: each site's row of measured latencies).
 * @throws UsageError `LAB_CALIBRATE_NEEDS_TWO_HOSTS` (fewer than 2 hosts per site).
 */
export async function calibrateLab(plan: LabPlan, options: CalibrateOptions = {}): Promise<SiteProfile> {
  const o = { pings: 20, largeBytes: 8 * 2 ** 20, repeat: 1, ...options }
  if (plan.spec.hostsPerRack < 2)
    throw new UsageError(
      'LAB_CALIBRATE_NEEDS_TWO_HOSTS',
      `calibration pairs host 0 and host 1 of each site; lab ${plan.spec.id} has ${plan.spec.hostsPerRack} host per site`,
    )
  const m = plan.spec.racks
  const latency = Array.from({ length: m }, () => new Array<number>(m).fill(0))
  const bandwidth = Array.from({ length: m }, () => new Array<number>(m).fill(0))
  for (let round = 0; round < m; round++) {
    const rows = await measureRound(plan, round, o)
    rows.forEach((r, s) => {
      const t = (s + round) % m
      const rtt = median(r.rttSeconds)
      latency[s]![t] = rtt / 2
      bandwidth[s]![t] = r.largeBytes / Math.max(1e-9, median(r.largeSeconds) - rtt)
    })
  }
  const sites = plan.spec.sites
  return {
    name: `lab-${plan.spec.id}-calibrated`,
    sites: sites ? [...sites.names] : Array.from({ length: m }, (_, r) => `rack-${r}`),
    latency,
    bandwidth,
    coordinates: sites
      ? sites.coordinates.map((c) => [...c])
      : latency.map((row) => row.map((l) => l * 1000)),
    nodes: new Array(m).fill(plan.spec.hostsPerRack),
  }
}
