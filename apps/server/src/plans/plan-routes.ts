import { CodebookError } from '@codebook/runtime/errors'
import { type SiteProfile, siteProfileOfTopology } from '@codebook/runtime/netsim'
import { CreatePlan, ErrorBody, PLAN_LIMITS, PlanResult, type Topology } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ApiError } from '../http/api-error.ts'
import { TOPOLOGY_BODY_LIMIT, TopologyField } from '../topologies/topology-body.ts'
import { checkTopology } from '../topologies/topology-service.ts'

const errors = { 400: ErrorBody, 401: ErrorBody, 422: ErrorBody, 429: ErrorBody, 503: ErrorBody }

/** With `topology` (saved or not, as the what-if routes take it) the plan maps onto its own sites and nodes. */
const PlanBody = CreatePlan.extend({ topology: TopologyField.optional() })

/** The α-β profile of a topology's sites, refused with a coded 400 when it cannot hold the plan. */
function topologySites(topology: Topology, processes: number): SiteProfile {
  let sites: SiteProfile
  try {
    sites = siteProfileOfTopology(topology)
  } catch (err) {
    if (err instanceof CodebookError) throw new ApiError(400, err.code, err.message)
    throw err
  }
  const nodes = (sites.nodes ?? []).reduce((a, b) => a + b, 0)
  if (processes > nodes)
    throw new ApiError(
      400,
      'MAPPING_CAPACITY',
      `${processes} processes but topology "${topology.name}" has only ${nodes} nodes (one process per node)`,
    )
  return sites
}

/**
 * `POST /api/plans`: where each rank of a workload runs across a built-in site profile or a
 * topology's own sites, per planner (`codebook plan mapping` over HTTP). Checked here (coded
 * 400s), planned in a child process queued as a job; the request waits for the answer.
 */
export const planRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/plans',
    {
      bodyLimit: TOPOLOGY_BODY_LIMIT,
      schema: { tags: ['plans'], body: PlanBody, response: { 200: PlanResult, ...errors } },
    },
    async (request) => {
      const { topology, ...body } = request.body
      // Refused before it is queued: the runtime would refuse it only once a child has started.
      if (body.pattern === 'kmeans' && body.processes > PLAN_LIMITS.maxKmeansProcesses)
        throw new ApiError(
          400,
          'PATTERN_TOO_LARGE',
          `the kmeans pattern is derived from its schedules: at most ${PLAN_LIMITS.maxKmeansProcesses} processes, got ${body.processes}`,
        )
      if (topology === undefined) return app.plans.run(body)
      return app.plans.run({ ...body, sites: topologySites(checkTopology(topology), body.processes) })
    },
  )
}
