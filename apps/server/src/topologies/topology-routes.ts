import { CodebookError } from '@codebook/runtime/errors'
import { formatTopology, parseTopology } from '@codebook/runtime/topology'
import {
  ErrorBody,
  IdParams,
  ListPageQuery,
  ParseTopologyRequest,
  ParseTopologyResult,
  RenderTopologyRequest,
  RenderTopologyResult,
  SaveTopology,
  TopologyList,
  TopologyRecord,
  TopologyVersionList,
} from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../http/api-error.ts'
import { simulateRoutes } from './simulate-routes.ts'
import { TOPOLOGY_BODY_LIMIT, TopologyField } from './topology-body.ts'
import { checkTopology } from './topology-service.ts'

const SaveBody = SaveTopology.extend({ topology: TopologyField })
const RenderBody = RenderTopologyRequest.extend({ topology: TopologyField })
const VersionParams = IdParams.extend({ version: z.coerce.number().int().positive() })

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody }

/** A runtime parse/format error is bad input here: 400 with its code (and line, in the message). */
function asBadRequest(err: unknown): never {
  if (err instanceof CodebookError && !(err instanceof ApiError))
    throw new ApiError(400, err.code, err.message)
  throw err
}

/**
 * REST routes of topologies under `/api`: versioned storage (`/topologies`), format conversions
 * (`/topology-formats/parse|render`) and, through {@link simulateRoutes}, the what-if simulator.
 */
export const topologyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/topologies',
    {
      schema: {
        summary:
          "One page of topologies, newest updated first (`limit`, `before` = the last page's `nextBefore`)",
        tags: ['topologies'],
        querystring: ListPageQuery,
        response: { 200: TopologyList, 400: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
    },
    async (request) => {
      const { items, nextBefore } = await app.topologies.list(request.query)
      return { topologies: items, nextBefore }
    },
  )

  app.post(
    '/topologies',
    {
      bodyLimit: TOPOLOGY_BODY_LIMIT,
      schema: { tags: ['topologies'], body: SaveBody, response: { 201: TopologyRecord, ...errors } },
    },
    async (request, reply) => reply.code(201).send(await app.topologies.create(request.body)),
  )

  app.get(
    '/topologies/:id',
    { schema: { tags: ['topologies'], params: IdParams, response: { 200: TopologyRecord, ...errors } } },
    async (request) => app.topologies.get(request.params.id),
  )

  app.delete(
    '/topologies/:id',
    { schema: { tags: ['topologies'], params: IdParams, response: { 204: z.null(), ...errors } } },
    async (request, reply) => {
      await app.topologies.remove(request.params.id)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/topologies/:id/versions',
    {
      schema: { tags: ['topologies'], params: IdParams, response: { 200: TopologyVersionList, ...errors } },
    },
    async (request) => ({ versions: await app.topologies.versions(request.params.id) }),
  )

  app.post(
    '/topologies/:id/versions',
    {
      bodyLimit: TOPOLOGY_BODY_LIMIT,
      schema: {
        tags: ['topologies'],
        params: IdParams,
        body: SaveBody,
        response: { 201: TopologyRecord, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await app.topologies.saveVersion(request.params.id, request.body)),
  )

  app.get(
    '/topologies/:id/versions/:version',
    {
      schema: { tags: ['topologies'], params: VersionParams, response: { 200: TopologyRecord, ...errors } },
    },
    async (request) => app.topologies.get(request.params.id, request.params.version),
  )

  app.post(
    '/topology-formats/parse',
    {
      bodyLimit: TOPOLOGY_BODY_LIMIT,
      schema: {
        tags: ['topologies'],
        body: ParseTopologyRequest,
        response: { 200: ParseTopologyResult, ...errors },
      },
    },
    async (request) => {
      const { format, text, ...options } = request.body
      let parsed: unknown
      try {
        parsed = parseTopology(text, format, options)
      } catch (err) {
        asBadRequest(err)
      }
      return { topology: checkTopology(parsed) }
    },
  )

  app.post(
    '/topology-formats/render',
    {
      bodyLimit: TOPOLOGY_BODY_LIMIT,
      schema: { tags: ['topologies'], body: RenderBody, response: { 200: RenderTopologyResult, ...errors } },
    },
    async (request) => {
      const topology = checkTopology(request.body.topology)
      try {
        return { text: formatTopology(topology, request.body.format) }
      } catch (err) {
        asBadRequest(err)
      }
    },
  )

  await app.register(simulateRoutes)
}
