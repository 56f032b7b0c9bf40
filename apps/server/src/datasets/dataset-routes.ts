import { randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  CreateDatasetQuery,
  Dataset,
  DatasetList,
  DatasetPreview,
  EntityId,
  ErrorBody,
  IdParams,
  ListPageQuery,
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

const DirectUploadQuery = CreateDatasetQuery.extend({
  wait: z
    .enum(['true', 'false'])
    .optional()
    .describe('true: answer only when processing has ended (201 ready, or 422 with the failure)'),
})

const PreviewQuery = z.object({ rows: z.coerce.number().int().min(1).max(1000).default(20) })

/** Most bytes of preview answers kept (a 1,000-row preview of d = 128 is ~0.7 MB). */
export const PREVIEW_CACHE_BYTES = 64 * 1024 * 1024

/**
 * Serialized preview answers by dataset and row count, least recently used first. A preview is
 * only answered for a ready dataset, which never changes, so an entry is valid until the dataset
 * is deleted. Concurrent requests for the same preview share one computation.
 */
function createPreviewCache(compute: (id: string, rows: number) => Promise<DatasetPreview>) {
  const entries = new Map<string, Promise<Buffer>>()
  const sizes = new Map<string, number>()
  let bytes = 0
  const drop = (key: string) => {
    entries.delete(key)
    bytes -= sizes.get(key) ?? 0
    sizes.delete(key)
  }
  return {
    get(id: string, rows: number): Promise<Buffer> {
      const key = `${id}\n${rows}`
      const cached = entries.get(key)
      if (cached !== undefined) {
        entries.delete(key)
        entries.set(key, cached)
        return cached
      }
      // Validated as the route's serializer would, then kept as bytes (sent without a copy each time).
      const body = compute(id, rows).then((preview) =>
        Buffer.from(JSON.stringify(DatasetPreview.parse(preview))),
      )
      entries.set(key, body)
      body.then(
        (json) => {
          if (entries.get(key) !== body) return
          sizes.set(key, json.length)
          bytes += json.length
          for (const old of entries.keys()) {
            if (bytes <= PREVIEW_CACHE_BYTES || old === key) break
            drop(old)
          }
        },
        () => {
          if (entries.get(key) === body) drop(key)
        },
      )
      return body
    },
    forget(id: string): void {
      for (const key of [...entries.keys()]) if (key.startsWith(`${id}\n`)) drop(key)
    },
  }
}

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

  const previews = createPreviewCache((id, rows) => app.datasets.preview(id, rows))

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
      schema: {
        summary: "One page of datasets, newest first (`limit`, `before` = the last page's `nextBefore`)",
        tags: ['datasets'],
        querystring: ListPageQuery,
        response: { 200: DatasetList, 400: ErrorBody, 429: ErrorBody, 503: ErrorBody },
      },
    },
    async (request) => {
      const { items, nextBefore } = await app.datasets.list(request.query)
      return { datasets: items, nextBefore }
    },
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
    async (request, reply) => {
      // 404 for a dataset deleted while its preview was being built (and so cached after the delete).
      await app.datasets.get(request.params.id)
      const json = await previews.get(request.params.id, request.query.rows)
      // Already validated and serialized: Fastify sends a Buffer as it is.
      return reply.type('application/json').send(json as unknown as DatasetPreview)
    },
  )

  app.get(
    '/datasets/:id/picture-names',
    {
      schema: {
        summary:
          'The picture names of a dataset whose HOG picture ids were names: line i names picture index i (the `picture` of the .npy assignments)',
        tags: ['datasets'],
        params: IdParams,
        // No response schema: the body is a text file.
      },
    },
    async (request, reply) => {
      const file = await app.datasets.pictureNamesFile(request.params.id)
      return reply
        .header('content-type', 'text/plain; charset=utf-8')
        .header('content-disposition', `attachment; filename="picture-names-${request.params.id}.txt"`)
        .send(createReadStream(file))
    },
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
      previews.forget(request.params.id)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/uploads/:uploadId',
    {
      schema: {
        summary: 'The dataset a finished tus upload became',
        tags: ['datasets'],
        params: z.object({ uploadId: EntityId }),
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
