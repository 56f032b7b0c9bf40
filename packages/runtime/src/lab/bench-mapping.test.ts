import { rm, writeFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import { broadcastSchedule } from '../collectives/schedules/broadcast-schedule.ts'
import {
  centroidBlocks,
  partialBlockBytes,
  regroupSchedule,
} from '../collectives/schedules/regroup-schedule.ts'
import { ec2FourRegions } from '../mapping/site-profile.ts'
import { LAB_PAYLOAD_EFFICIENCY } from '../simulator/lab-cluster.ts'
import { placedLabClusterSpec } from '../simulator/lab-sites-cluster.ts'
import { predictKmeansOnCluster } from '../simulator/predict-kmeans.ts'
import { predictOverlappedIteration } from '../simulator/predict-kmeans-overlap.ts'
import {
  type LabBenchMappingGain,
  type LabBenchMappingOptions,
  type LabBenchMappingRow,
  REFERENCE_KERNEL_GFLOPS,
  runLabBenchMapping,
  simulatePlacedIteration,
} from './bench-mapping.ts'
import { labDown, labUnavailableReason } from './lab-net.ts'
import { labSitesFromProfile } from './lab-sites.ts'

// Lab 7, as lab-kmeans.test.ts: vitest runs one file at a time (fileParallelism: false).
const ID = 7
const reason = await labUnavailableReason()

/** Two EC2 regions (US East, Singapore: 0.35 s one way in the geo paper's Table 2), two hosts each, rates × 0.02. */
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
    randomDraws: 2,
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
    await expect(runLabBenchMapping({ ...o, randomDraws: 0 })).rejects.toMatchObject({ code: 'BAD_OPTION' })
  })
})

describe('lab bench mapping: the simulated makespan of a placed iteration', () => {
  it('2 sites × 1 host, ring: each stage as hand-computed from the lab’s asymmetric delays and rates', () => {
    const o = twoSites()
    // Asymmetric on purpose (50 ms, 20 Mbit/s one way; 80 ms, 10 Mbit/s back), so a wrong direction shows.
    const sites = {
      ...o.lab.sites!,
      latencyMs: [
        [0.25, 50],
        [80, 0.25],
      ],
      mbps: [
        [0, 20],
        [10, 0],
      ],
    }
    const lab = { ...o.lab, hostsPerRack: 1, uplinkMbps: o.lab.nodeMbps, sites }
    const r = (s: number, t: number) =>
      ((Math.min(sites.mbps[s]![t]!, lab.nodeMbps) * 1e6) / 8) * LAB_PAYLOAD_EFFICIENCY
    const L = (s: number, t: number) => sites.latencyMs[s]![t]! / 1000
    const run = { ...o, lab, k: 1000, d: 128, chunkBytes: 65_536, mapGflops: 2, cores: 2 }
    // Rank 0 on host 1 (site 1), rank 1 on host 0 (site 0): every send's direction is fixed by the mapping.
    const got = simulatePlacedIteration(run, [1, 0])
    const block = (run.k / 2) * (run.d + 1) * 8 // float64 sums and a count, k/2 centroids
    // Chain broadcast 0 → 1: one hop streamed in chunks, its latency paid once.
    expect(got.stages.broadcast.seconds).toBeCloseTo((run.k * run.d * 4) / r(1, 0) + L(1, 0), 9)
    expect(got.stages.map.seconds).toBeCloseTo((run.pointsPerProcess * run.k * run.d * 2) / 2e9, 12)
    // Ring of two: both send a block at once, on opposite directions; the step waits for the slower.
    expect(got.stages.regroup.seconds).toBeCloseTo(
      Math.max(block / r(1, 0) + L(1, 0), block / r(0, 1) + L(0, 1)),
      9,
    )
    // Combine: rank 1 owns block 0 and sends it to rank 0.
    expect(got.stages.combine.seconds).toBeCloseTo(block / r(0, 1) + L(0, 1), 9)
    expect(got.seconds).toBeCloseTo(
      got.stages.broadcast.seconds +
        got.stages.map.seconds +
        got.stages.regroup.seconds +
        got.stages.combine.seconds,
      12,
    )
    // Without barriers (2 cores, map M = 0.3 s a worker): rank 0 maps once its chunks have left,
    // rank 1 once they arrived; each ring send follows its sender's map; rank 1's combine send
    // waits for its ring send to leave and rank 0's block to arrive.
    const M = 0.3
    const overlapped = simulatePlacedIteration(
      { ...run, mapGflops: (run.pointsPerProcess * run.k * run.d * 2) / M / 1e9, cores: 2 },
      [0, 1],
    )
    const sent = (run.k * run.d * 4) / r(0, 1)
    const combineStart = Math.max(sent + M + block / r(0, 1) + L(0, 1), sent + L(0, 1) + M + block / r(1, 0))
    expect(overlapped.overlappedSeconds).toBeCloseTo(combineStart + block / r(1, 0) + L(1, 0), 9)
    // The sum of sends would charge both ring sends: the makespan charges the slower only.
    expect(got.stages.regroup.seconds).toBeLessThan(
      block / r(1, 0) + L(1, 0) + block / r(0, 1) + L(0, 1) - 0.1,
    )
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
    // geo, random's two draws, their mean; then the gain.
    expect(rows.map((r) => [r.algorithm, r.draw, r.draws])).toEqual([
      ['geo', undefined, undefined],
      ['random', 0, undefined],
      ['random', 1, undefined],
      ['random', undefined, 2],
    ])
    expect(lines).toHaveLength(5)
    const [geo, draw0, draw1, random] = rows as [
      LabBenchMappingRow,
      LabBenchMappingRow,
      LabBenchMappingRow,
      LabBenchMappingRow,
    ]
    for (const key of ['modelledSeconds', 'simulatedSeconds', 'measuredSeconds', 'cost'] as const)
      expect(random[key]).toBeCloseTo((draw0[key] + draw1[key]) / 2, 12)
    const { gainOverRandom: gain } = lines[4] as LabBenchMappingGain
    expect(gain.simulated).toBeCloseTo(1 - geo.simulatedSeconds / random.simulatedSeconds, 12)
    expect(gain.measured).toBeCloseTo(1 - geo.measuredSeconds / random.measuredSeconds, 12)
    expect(gain.measuredByRound).toHaveLength(1)
    // The simulated makespan is the simulator's own answer for the same mapping on the lab as configured.
    for (const row of rows.slice(0, 3)) {
      const model = {
        n: 4 * o.pointsPerProcess,
        d: o.d,
        k: o.k,
        broadcast: 'chain' as const,
        order: [0, 1, 2, 3],
        aggregation: o.aggregation,
        chunkBytes: o.chunkBytes,
        slots: [1, 1, 1, 1],
      }
      // Four workers map at once on this machine's cores: each gets cores / 4 of one (at most one).
      const perWorker = REFERENCE_KERNEL_GFLOPS * Math.min(1, availableParallelism() / 4)
      const direct = predictKmeansOnCluster(placedLabClusterSpec({ ...o.lab, sites }, row.nodeOf), {
        ...model,
        mapGflopsPerSlot: perWorker,
      })
      expect(row.simulatedSeconds).toBe(direct.seconds)
      expect(row.overlappedSeconds).toBe(
        predictOverlappedIteration(placedLabClusterSpec({ ...o.lab, sites }, row.nodeOf), model, {
          cores: availableParallelism(),
          gflopsPerCore: REFERENCE_KERNEL_GFLOPS,
        }),
      )
      expect(row.simulatedStagesMs.regroup).toBe(direct.stages.regroup.seconds * 1000)
    }
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
    for (const row of rows.slice(0, 3)) {
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
    for (const row of rows.slice(0, 3)) expect(row.measuredSeconds).toBeGreaterThan(2 * oneWay)
  }, 180_000)
})

describe.skipIf(reason === null)('lab bench mapping skipped', () => {
  it.skip(`skipped: ${reason}`, () => {})
})
