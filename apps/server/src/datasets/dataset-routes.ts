import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  CreateDatasetQuery,
  Dataset,
  DatasetList,
  DatasetPreview,
  ErrorBody,
  UploadDataset,
} from '@codebook/shared'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError, uploadTooLarge } from '../http/api-error.ts'
import { DIRECT_UPLOAD_PREFIX } from './upload-names.ts'

/** Options of {@link datasetRoutes}. */
export interface DatasetRoutesOptions {
  maxUploadBytes: number
}

const IdParams = z.object({ id: z.string().min(1) })

const DirectUploadQuery = CreateDatasetQuery.extend({
  wait: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: answer only when processing has ended (201 ready, or 422 with the failure)'),
})

const PreviewQuery = z.object({ rows: z.coerce.number().int().min(1).max(1000).default(20) })

const errors = {
  400: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  422: ErrorBody,
  429: ErrorBody,
}

/**
 * Streams the raw request body to `path`, counting bytes so a body over the limit stops early
 * (the stream parser leaves Fastify's bodyLimit out of play, so the limit is enforced here).
 */
export async function receiveBody(request: FastifyRequest, path: string, maxBytes: number): Promise<number> {
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) throw uploadTooLarge(maxBytes)
  let bytes = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length
      if (bytes > maxBytes) callback(uploadTooLarge(maxBytes))
      else callback(null, chunk)
    },
  })
  try {
    await pipeline(request.raw, counter, createWriteStream(path))
  } catch (err) {
    await rm(path, { force: true })
    throw err
  }
  return bytes
}

/** REST routes of datasets under `/api`: direct upload, list, detail, preview, delete, upload lookup. */
export const datasetRoutes: FastifyPluginAsyncZod<DatasetRoutesOptions> = async (app, options) => {
  // Direct uploads take any body as a file: no parser reads it, the handler streams it to disk.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { bodyLimit: options.maxUploadBytes }, (_request, _payload, done) =>
    done(null),
  )

  for (const method of ['POST', 'PUT'] as const) {
    app.route({
      method,
      url: '/datasets',
      schema: {
        summary:
          method === 'POST'
            ? 'Upload a vector file as the raw request body and import it'
            : 'Same as POST, for `curl -T file URL`',
        tags: ['datasets'],
        querystring: DirectUploadQuery,
        response: { 201: Dataset, 202: Dataset, ...errors },
      },
      handler: async (request, reply) => {
        const uploadId = `${DIRECT_UPLOAD_PREFIX}${randomUUID()}`
        const uploadPath = join(app.home.uploads, uploadId)
        const sourceBytes = await receiveBody(request, uploadPath, options.maxUploadBytes)
        let dataset: Dataset
        try {
          dataset = await app.datasets.startImport({
            name: request.query.name,
            format: request.query.format,
            uploadPath,
            uploadId,
            sourceBytes,
          })
        } catch (err) {
          await rm(uploadPath, { force: true })
          throw err
        }
        if (request.query.wait !== 'true') return reply.code(202).send(dataset)
        const final = await app.datasets.settled(dataset.id)
        if (final.status === 'ready') return reply.code(201).send(final)
        const error = final.error ?? { code: 'IMPORT_FAILED', message: 'processing failed' }
        return reply.code(422).send({ ...error, reqId: String(request.id) })
      },
    })
  }

  app.get(
    '/datasets',
    {
      schema: { summary: 'List datasets, newest first', tags: ['datasets'], response: { 200: DatasetList } },
    },
    async () => ({ datasets: await app.datasets.list() }),
  )

  app.get(
    '/datasets/:id',
    {
      schema: {
        summary: 'One dataset',
        tags: ['datasets'],
        params: IdParams,
        response: { 200: Dataset, ...errors },
      },
    },
    async (request) => app.datasets.get(request.params.id),
  )

  app.get(
    '/datasets/:id/preview',
    {
      schema: {
        summary: 'First rows and statistics of a ready dataset',
        tags: ['datasets'],
        params: IdParams,
        querystring: PreviewQuery,
        response: { 200: DatasetPreview, ...errors },
      },
    },
    async (request) => app.datasets.preview(request.params.id, request.query.rows),
  )

  app.delete(
    '/datasets/:id',
    {
      schema: {
        summary: 'Delete a dataset (cancels its processing first)',
        tags: ['datasets'],
        params: IdParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await app.datasets.remove(request.params.id)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/uploads/:uploadId',
    {
      schema: {
        summary: 'The dataset a finished tus upload became',
        tags: ['datasets'],
        params: z.object({ uploadId: z.string().min(1) }),
        response: { 200: UploadDataset, ...errors },
      },
    },
    async (request) => {
      const dataset = await app.datasets.findByUploadId(request.params.uploadId)
      if (dataset === undefined) {
        throw new ApiError(
          404,
          'UPLOAD_NOT_FOUND',
          `no dataset for upload ${request.params.uploadId}; the upload may not have finished`,
        )
      }
      return { datasetId: dataset.id }
    },
  )
}
