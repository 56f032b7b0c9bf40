import { rm, writeFile } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { broadcastSchedule } from '../collectives/schedules/broadcast-schedule.ts'
import {
  centroidBlocks,
  partialBlockBytes,
  regroupSchedule,
} from '../collectives/schedules/regroup-schedule.ts'
import { ec2FourRegions } from '../mapping/site-profile.ts'
import { type LabBenchMappingOptions, runLabBenchMapping } from './bench-mapping.ts'
import { labDown, labUnavailableReason } from './lab-net.ts'
import { labSitesFromProfile } from './lab-sites.ts'

// Lab 7, as lab-kmeans.test.ts: vitest runs one file at a time (fileParallelism: false).
const ID = 7
const reason = await labUnavailableReason()

/** Two EC2 regions (US East, Singapore: 108 ms one way), two hosts each, rates × 0.02. */
function twoSites(): LabBenchMappingOptions {
  const ec2 = ec2FourRegions()
  const pick = [0, 2]
  const two = {
    ...ec2,
    sites: pick.map((s) => ec2.sites[s]!),
    latency: pick.map((s) => pick.map((t) => ec2.latency[s]![t]!)),
    bandwidth: pick.map((s) => pick.map((t) => ec2.bandwidth[s]![t]!)),
    coordinates: pick.map((s) => ec2.coordinates[s]!),
  }
  return {
    lab: { id: ID, ...labSitesFromProfile(two, 2, { rateScale: 0.02 }) },
    planProfile: 'ec2-4',
    calibrate: false,
    k: 64,
    d: 32,
    pointsPerProcess: 100,
    aggregation: 'ring',
    chunkBytes: 4096,
    constraintRatio: 0,
    seed: 3,
    planners: ['geo', 'random'],
    iterations: 1,
    rounds: 1,
  }
}

describe('lab bench mapping: bad input', () => {
  it('refuses a lab without sites, a run without geo or random, and a profile of another size', async () => {
    const o = twoSites()
    await expect(runLabBenchMapping({ ...o, lab: { ...o.lab, sites: undefined } })).rejects.toMatchObject({
      code: 'LAB_NEEDS_SITES',
    })
    await expect(runLabBenchMapping({ ...o, planners: ['geo', 'greedy'] })).rejects.toMatchObject({
      code: 'LAB_BENCH_NEEDS_PLANNERS',
    })
    // ec2-4 has four sites, this lab two: refused before any lab is built.
    await expect(runLabBenchMapping(o)).rejects.toMatchObject({ code: 'LAB_PROFILE_MISMATCH' })
  })
})

describe.skipIf(reason !== null)(`lab bench mapping on two sites (${reason ?? 'root'})`, () => {
  afterAll(async () => {
    await labDown(ID)
  }, 30_000)

  it('prices each placed run by its schedules on the configured lab and times it across the sites', async () => {
    const o = twoSites()
    const file = `/tmp/cb-bench-mapping-${process.pid}.json`
    const sites = o.lab.sites!
    await writeFile(
      file,
      JSON.stringify({
        name: 'two',
        sites: sites.names,
        latency: sites.latencyMs.map((r) => r.map((ms) => ms / 1000)),
        bandwidth: sites.mbps.map((r) => r.map((m) => (m * 1e6) / 8)),
        coordinates: sites.coordinates,
      }),
    )
    const lines: unknown[] = []
    const rows = await runLabBenchMapping({ ...o, planProfile: file }, (row) => lines.push(row)).finally(() =>
      rm(file, { force: true }),
    )
    expect(rows.map((r) => r.algorithm)).toEqual(['geo', 'random'])
    expect(lines).toHaveLength(3)
    // Second implementation of the model: walk the runtime's schedules send by send, pricing each
    // on the configured lab (payload rate = htb rate × 1448/1514, the pair's rate capped by the node links).
    const ranks = [0, 1, 2, 3]
    const regroup = regroupSchedule(
      'ring',
      ranks,
      centroidBlocks(o.k, 4).map((c) => partialBlockBytes(c, o.d)),
      [1, 1, 1, 1],
    )
    const sends = [
      ...broadcastSchedule('chain', ranks, o.k * o.d * 4, o.chunkBytes),
      ...regroup.regroup,
      ...regroup.combine,
    ]
    const payload = (mbps: number) => (mbps * 1e6 * 1448) / 1514 / 8
    for (const row of rows) {
      expect(row.siteOf.toSorted()).toEqual([0, 0, 1, 1]) // two hosts a site, every host used
      const priced = sends.reduce((sum, x) => {
        const [s, t] = [row.siteOf[x.from]!, row.siteOf[x.to]!]
        const rate = s === t ? o.lab.nodeMbps : Math.min(sites.mbps[s]![t]!, o.lab.nodeMbps)
        return sum + sites.latencyMs[s]![t]! / 1000 + x.bytes / payload(rate)
      }, 0)
      expect(row.modelledSeconds / priced, row.algorithm).toBeCloseTo(1, 9)
    }
    // Every iteration sends the centroids across the 108 ms link and the partials back: at least one crossing each way.
    const oneWay = sites.latencyMs[0]![1]! / 1000
    for (const row of rows) expect(row.measuredSeconds).toBeGreaterThan(2 * oneWay)
  }, 180_000)
})

describe.skipIf(reason === null)('lab bench mapping skipped', () => {
  it.skip(`skipped: ${reason}`, () => {})
})
