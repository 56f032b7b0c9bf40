import {
  ErrorBody,
  SimulateBroadcastRequest,
  SimulateBroadcastResult,
  SimulateKmeansRequest,
  SimulateKmeansResult,
} from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ApiError } from '../http/api-error.ts'
import { checkBroadcastRequest, checkKmeansRequest, type KmeansWhatIf } from './simulate-core.ts'
import { TOPOLOGY_BODY_LIMIT, TopologyField } from './topology-body.ts'
import { checkTopology } from './topology-service.ts'

const errors = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  422: ErrorBody,
  429: ErrorBody,
  503: ErrorBody,
}

const BroadcastBody = SimulateBroadcastRequest.extend({ topology: TopologyField })
const KmeansBody = SimulateKmeansRequest.extend({ topology: TopologyField })

/**
 * What-if routes under `/api/simulate`: the flow-level simulator of `codebook simulate` on a
 * topology sent in the body (saved or not). Requests are checked against the limits first
 * (coded 400s), then run in the simulation process (422 `SIM_TIMEOUT` past its time limit).
 */
export const simulateRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/simulate/broadcast',
    {
      bodyLimit: TOPOLOGY_BODY_LIMIT,
      schema: {
        tags: ['simulate'],
        body: BroadcastBody,
        response: { 200: SimulateBroadcastResult, ...errors },
      },
    },
    async (request) => {
      const topology = checkTopology(request.body.topology)
      const req: SimulateBroadcastRequest = { ...request.body, topology }
      checkBroadcastRequest(topology, req)
      return (await app.simulations.run({
        kind: 'broadcast',
        topology,
        request: req,
      })) as SimulateBroadcastResult
    },
  )

  app.post(
    '/simulate/kmeans',
    {
      bodyLimit: TOPOLOGY_BODY_LIMIT,
      schema: {
        tags: ['simulate'],
        body: KmeansBody,
        response: { 200: SimulateKmeansResult, ...errors },
      },
    },
    async (request) => {
      const { topology: raw, datasetId, n, d, ...rest } = request.body
      const topology = checkTopology(raw)
      let size: { n: number; d: number }
      if (datasetId !== undefined) {
        if (n !== undefined || d !== undefined)
          throw new ApiError(400, 'SIM_BAD_INPUT', 'give either datasetId or n and d, not both')
        const ds = await app.datasets.get(datasetId)
        if (ds.status !== 'ready' || ds.n === null || ds.d === null)
          throw new ApiError(409, 'DATASET_NOT_READY', `dataset ${datasetId} is ${ds.status}, not ready`)
        size = { n: ds.n, d: ds.d }
      } else {
        if (n === undefined || d === undefined)
          throw new ApiError(400, 'SIM_BAD_INPUT', 'give n and d (vectors and dimensions), or a datasetId')
        size = { n, d }
      }
      const whatIf: KmeansWhatIf = { ...rest, ...size }
      checkKmeansRequest(topology, whatIf)
      return (await app.simulations.run({ kind: 'kmeans', topology, whatIf })) as SimulateKmeansResult
    },
  )
}
