import { readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import {
  builtInProfiles,
  MAX_KMEANS_PATTERN_PROCESSES,
  mappingPatterns,
  mappingPlanners,
  planMapping,
  siteProfileOfTopology,
} from '@codebook/runtime/netsim'
import { PLAN_LIMITS, PlanResult, planPatterns, planPlanners, planProfiles } from '@codebook/shared'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import { childPids } from '../test-support/processes.ts'
import { authHeaders, makeTempHome, testConfig } from '../test-support/test-server.ts'
import { PLAN_MPIPP_MAX_MS } from './plan-job.ts'
import { planInChild } from './plan-process.ts'

/** A real server on a real socket (PGlite: plans store nothing). */
async function startServer() {
  const home = await makeTempHome()
  const app: FastifyInstance = await buildApp(testConfig(home.home, undefined))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  return {
    app,
    post: (body: object, headers: Record<string, string> = authHeaders) =>
      fetch(`${base}/api/plans`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    async stop() {
      await app.close()
      await home.remove()
    },
  }
}

describe('POST /api/plans', () => {
  let server: Awaited<ReturnType<typeof startServer>>
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.stop())

  it('names what the runtime names (patterns, planners, profiles, the kmeans bound)', () => {
    expect([...planPatterns]).toEqual([...mappingPatterns])
    expect([...planPlanners]).toEqual([...mappingPlanners])
    expect([...planProfiles]).toEqual(Object.keys(builtInProfiles))
    expect(PLAN_LIMITS.maxKmeansProcesses).toBe(MAX_KMEANS_PATTERN_PROCESSES)
  })

  it('answers what planMapping gives when called directly with the same options', async () => {
    const options = {
      profile: 'ec2-4',
      pattern: 'bt',
      processes: 16,
      constraintRatio: 0.25,
      seed: 3,
      planners: [...mappingPlanners],
      monteCarlo: 500,
    }
    const res = await server.post(options)
    expect(res.status).toBe(200)
    const got = PlanResult.parse(await res.json())
    const direct = planMapping({ ...options, mpipp: { maxMs: PLAN_MPIPP_MAX_MS } })

    expect(got.sites).toEqual(['us-east', 'us-west', 'singapore', 'ireland'])
    expect(got.capacity).toEqual(direct.capacity)
    expect(got.constraints).toEqual(direct.constraints)
    expect(got.constraints.filter((s) => s >= 0)).toHaveLength(4)
    // Every planner's cost and mapping, rank by rank.
    expect(got.plans.map(({ planMs, ...p }) => p)).toEqual(direct.plans.map(({ planMs, ...p }) => p))
    for (const p of got.plans) expect(p.planMs).toBeGreaterThanOrEqual(0)
    // The chosen plan is the cheapest (the first on a tie)…
    const cheapest = direct.plans.reduce((a, b) => (b.cost < a.cost ? b : a))
    expect(got.chosen).toBe(cheapest.algorithm)
    // …and every plan honours the pins and the sites' capacities.
    for (const plan of got.plans) {
      got.constraints.forEach((s, r) => {
        if (s >= 0) expect(plan.siteOf[r]).toBe(s)
      })
      const perSite = got.sites.map((_, s) => plan.siteOf.filter((x) => x === s).length)
      for (const [s, n] of perSite.entries()) expect(n).toBeLessThanOrEqual(got.capacity[s]!)
      expect(new Set(plan.nodeOf).size).toBe(16)
    }
    expect(got.monteCarlo).toEqual({
      samples: 500,
      best: direct.monteCarlo!.best,
      mean: direct.monteCarlo!.mean,
      fractionBetterThanGeo: direct.monteCarlo!.fractionBetterThanGeo,
    })
  }, 60_000)

  it('plans K-means with the ring aggregation unless asked otherwise, and says which it priced', async () => {
    const base = {
      pattern: 'kmeans',
      processes: 16,
      constraintRatio: 0.25,
      seed: 2,
      planners: ['geo', 'random'] as ('geo' | 'random')[],
    }
    const answer = async (body: object) => PlanResult.parse(await (await server.post(body)).json())
    const direct = (aggregation: 'ring' | 'three-stage') =>
      planMapping({
        ...base,
        profile: 'ec2-4',
        patternOptions: { aggregation },
        mpipp: { maxMs: PLAN_MPIPP_MAX_MS },
      })
    const byDefault = await answer(base)
    const threeStage = await answer({ ...base, aggregation: 'three-stage' })
    expect(byDefault.aggregation).toBe('ring')
    expect(threeStage.aggregation).toBe('three-stage')
    expect(byDefault.plans.map((p) => p.cost)).toEqual(direct('ring').plans.map((p) => p.cost))
    expect(threeStage.plans.map((p) => p.cost)).toEqual(direct('three-stage').plans.map((p) => p.cost))
    // Why ring is the default across sites: placed, it is far cheaper than any three-stage plan.
    expect(byDefault.plans[0]!.cost).toBeLessThan(0.5 * threeStage.plans[0]!.cost)
    // Other patterns carry no aggregation.
    expect((await answer({ pattern: 'bt', processes: 16 })).aggregation).toBeUndefined()
  }, 60_000)

  it('refuses bad input with a coded 400 naming the field, before any planning', async () => {
    const ok = { pattern: 'lu', processes: 16 }
    for (const [body, code, words] of [
      [{ ...ok, processes: PLAN_LIMITS.maxProcesses + 1 }, 'VALIDATION_FAILED', 'processes'],
      [{ ...ok, processes: 1 }, 'VALIDATION_FAILED', 'processes'],
      [{ ...ok, pattern: 'fft' }, 'VALIDATION_FAILED', 'pattern'],
      [{ ...ok, profile: 'mars-3' }, 'VALIDATION_FAILED', 'profile'],
      [{ ...ok, constraintRatio: 1.5 }, 'VALIDATION_FAILED', 'constraintRatio'],
      [{ ...ok, planners: ['geo', 'geo'] }, 'VALIDATION_FAILED', 'planners'],
      [{ ...ok, aggregation: 'star' }, 'VALIDATION_FAILED', 'aggregation'],
      [{ ...ok, monteCarlo: PLAN_LIMITS.maxMonteCarloSamples + 1 }, 'VALIDATION_FAILED', 'monteCarlo'],
      [{ pattern: 'kmeans', processes: 2048 }, 'PATTERN_TOO_LARGE', '1024'],
    ] as const) {
      const res = await server.post(body)
      const answer = (await res.json()) as { code: string; message: string }
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(answer.code).toBe(code)
      expect(answer.message).toContain(words)
    }
  })

  it('plans onto a topology’s own sites and nodes when the body carries one', async () => {
    const node = (name: string) => ({ name, host: 'local', slots: 1, nicGbps: 10 })
    const topology = {
      version: 1,
      name: 'three-sites',
      sites: ['east', 'west', 'asia'].map((site, s) => ({
        name: site,
        racks: [
          {
            name: `${site}-r`,
            uplinkGbps: 40,
            nodes: [0, 1, 2, 3].slice(0, s + 2).map((i) => node(`${site}${i}`)),
          },
        ],
      })),
      siteLinks: {
        latencyMs: [
          [0, 30, 90],
          [30, 0, 70],
          [90, 70, 0],
        ],
        bandwidthGbps: [
          [0, 5, 1],
          [5, 0, 2],
          [1, 2, 0],
        ],
      },
    }
    const options = {
      pattern: 'sp',
      processes: 8,
      constraintRatio: 0.25,
      seed: 5,
      planners: ['geo', 'greedy', 'random'],
    }
    const res = await server.post({ ...options, topology })
    expect(res.status).toBe(200)
    const got = PlanResult.parse(await res.json())
    expect(got.profile).toBe('three-sites')
    expect(got.sites).toEqual(['east', 'west', 'asia'])
    expect(got.capacity).toEqual([2, 3, 4])
    const direct = planMapping({
      ...options,
      profile: siteProfileOfTopology(topology as never),
      planners: ['geo', 'greedy', 'random'],
    })
    expect(got.plans.map(({ planMs, ...p }) => p)).toEqual(direct.plans.map(({ planMs, ...p }) => p))

    const { siteLinks: _, ...unlinked } = topology
    for (const [body, code] of [
      [{ ...options, topology: unlinked }, 'TOPOLOGY_NO_SITE_LINKS'],
      [{ ...options, processes: 10, topology }, 'MAPPING_CAPACITY'],
      [{ ...options, topology: { ...topology, sites: [] } }, 'INVALID_TOPOLOGY'],
    ] as const) {
      const bad = await server.post(body)
      expect(bad.status, code).toBe(400)
      expect(((await bad.json()) as { code: string }).code).toBe(code)
    }
  })

  it('is in the OpenAPI document', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, { post?: { responses: Record<string, unknown> } }>
    }
    expect(Object.keys(doc.paths['/api/plans']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '422', '503']),
    )
  })

  it('needs the token to plan', async () => {
    const res = await server.post({ pattern: 'lu', processes: 16 }, {})
    expect(res.status).toBe(401)
  })
})

describe('plan queue', () => {
  it('answers 503 PLAN_BUSY beyond the running plan and the 4 waiting, and 503 PLAN_CLOSED to waiting plans on close', async () => {
    const server = await startServer()
    try {
      // Six at once: one runs (a child start alone takes longer than the six requests' arrival).
      const answers = Array.from({ length: 6 }, () =>
        server.post({ pattern: 'lu', processes: 4096, monteCarlo: PLAN_LIMITS.maxMonteCarloSamples }),
      )
      const refused = await Promise.race(answers.map(async (p) => ((await p).status === 503 ? p : never())))
      expect(((await refused.json()) as { code: string }).code).toBe('PLAN_BUSY')
      const planChildren = async () => {
        const cmds = await Promise.all(
          (await childPids(process.pid)).map((pid) =>
            readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
          ),
        )
        return cmds.filter((c) => c.includes('plan-child')).length
      }
      await expect.poll(planChildren).toBe(1)
      await server.app.close()
      const statuses = await Promise.all(answers.map(async (p) => (await p).status))
      expect(statuses.filter((s) => s === 503)).toHaveLength(6)
      // The running plan's child is killed, not left to finish.
      await expect.poll(planChildren).toBe(0)
    } finally {
      await server.stop()
    }
  }, 60_000)

  it('stops a plan at its time limit with 422 PLAN_TIMEOUT', async () => {
    const started = Date.now()
    await expect(
      planInChild(
        {
          profile: 'ec2-4',
          pattern: 'lu',
          aggregation: 'ring',
          processes: 8192,
          constraintRatio: 0,
          seed: 1,
          planners: ['mpipp'],
          monteCarlo: 100_000,
        },
        500,
      ),
    ).rejects.toMatchObject({ code: 'PLAN_TIMEOUT', statusCode: 422 })
    expect(Date.now() - started).toBeLessThan(10_000)
  }, 30_000)
})

/** A promise that never settles (a race entry for an answer that is not the one wanted). */
function never(): Promise<never> {
  return new Promise(() => undefined)
}
