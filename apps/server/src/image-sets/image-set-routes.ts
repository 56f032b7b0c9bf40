import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { CreateImageSetQuery, EntityId, ErrorBody, IdParams, ImageSet, ImageSetList } from '@codebook/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { receiveBody } from '../datasets/dataset-routes.ts'
import { IMAGE_SET_UPLOAD_PREFIX } from '../datasets/upload-names.ts'

/** Options of {@link imageSetRoutes}. */
export interface ImageSetRoutesOptions {
  maxUploadBytes: number
}

const errors = {
  400: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  429: ErrorBody,
}

/**
 * REST routes of image sets under `/api`: upload (raw body, read and checked before answering),
 * list, detail, one image as PNG, delete. Registered in its own scope: it takes any body as a file.
 */
export const imageSetRoutes: FastifyPluginAsyncZod<ImageSetRoutesOptions> = async (app, options) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { bodyLimit: options.maxUploadBytes }, (_request, _payload, done) =>
    done(null),
  )

  for (const method of ['PUT', 'POST'] as const) {
    app.route({
      method,
      url: '/image-sets',
      schema: {
        summary:
          method === 'PUT'
            ? 'Upload a grid image (kind=grid, grid=WxH, rowsPerClass) or a zip of class folders (kind=zip) as the raw body'
            : 'Same as PUT',
        tags: ['image-sets'],
        querystring: CreateImageSetQuery,
        response: { 201: ImageSet, ...errors },
      },
      handler: async (request, reply) => {
        const uploadPath = join(app.home.uploads, `${IMAGE_SET_UPLOAD_PREFIX}${randomUUID()}`)
        await receiveBody(request, uploadPath, options.maxUploadBytes)
        const imageSet = await app.imageSets.create(request.query, uploadPath)
        return reply.code(201).send(imageSet)
      },
    })
  }

  app.get(
    '/image-sets',
    {
      schema: {
        summary: 'List image sets, newest first',
        tags: ['image-sets'],
        response: { 200: ImageSetList },
      },
    },
    async () => ({ imageSets: await app.imageSets.list() }),
  )

  app.get(
    '/image-sets/:id',
    {
      schema: {
        summary: 'One image set',
        tags: ['image-sets'],
        params: IdParams,
        response: { 200: ImageSet, ...errors },
      },
    },
    async (request) => app.imageSets.get(request.params.id),
  )

  app.get(
    '/image-sets/:id/images/:file',
    {
      schema: {
        summary:
          'Image INDEX of the set (label order, as evaluations number them) as PNG: …/images/INDEX.png',
        tags: ['image-sets'],
        params: z.object({
          id: EntityId,
          file: z.string().regex(/^\d+\.png$/, 'expected INDEX.png'),
        }),
      },
    },
    async (request, reply) => {
      const index = Number(request.params.file.slice(0, -'.png'.length))
      const png = await app.imageSets.imagePng(request.params.id, index)
      // An image of a set never changes (sets are immutable; a new upload gets a new id).
      return reply.type('image/png').header('cache-control', 'private, max-age=86400, immutable').send(png)
    },
  )

  app.delete(
    '/image-sets/:id',
    {
      schema: {
        summary: 'Delete an image set (refused while a queued or running evaluation uses it)',
        tags: ['image-sets'],
        params: IdParams,
        response: { 204: z.null(), ...errors },
      },
    },
    async (request, reply) => {
      await app.imageSets.remove(request.params.id)
      return reply.code(204).send(null)
    },
  )
}
