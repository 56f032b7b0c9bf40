import { join } from 'node:path'
import { UploadMetadata } from '@codebook/shared'
import { FileStore } from '@tus/file-store'
import { Server as TusServer } from '@tus/server'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'

/** Options of {@link uploadRoutes}. */
export interface UploadRoutesOptions {
  maxUploadBytes: number
}

/** Response header naming the dataset a finished tus upload became. */
export const DATASET_ID_HEADER = 'Codebook-Dataset-Id'

/** A tus hook rejection: the tus server answers with this status and body (JSON the client can show). */
function tusReject(status: number, code: string, message: string): { status_code: number; body: string } {
  return { status_code: status, body: JSON.stringify({ code, message }) }
}

/**
 * Resumable uploads (tus 1.0 with creation, termination, expiration-free file store) at `/files`.
 * Fastify only routes; the tus server reads the raw request. When an upload completes the
 * dataset record is created and its id returned in the `Codebook-Dataset-Id` header.
 */
export const uploadRoutes: FastifyPluginAsync<UploadRoutesOptions> = async (app, options) => {
  const tus = new TusServer({
    path: '/files',
    datastore: new FileStore({ directory: app.home.uploads }),
    maxSize: options.maxUploadBytes,
    // Same origin as the UI; a relative Location also survives proxies that rewrite the host.
    relativeLocation: true,
    exposedHeaders: [DATASET_ID_HEADER],
    async onUploadCreate(_req, upload) {
      const metadata = Object.fromEntries(
        Object.entries(upload.metadata ?? {}).filter((entry): entry is [string, string] => entry[1] !== null),
      )
      const parsed = UploadMetadata.safeParse(metadata)
      if (!parsed.success) {
        const problems = parsed.error.issues.map(
          (issue) => `${issue.path.join('.') || 'metadata'}: ${issue.message}`,
        )
        throw tusReject(400, 'VALIDATION_FAILED', `Upload-Metadata: ${problems.join('; ')}`)
      }
      return {}
    },
    async onUploadFinish(_req, upload) {
      const metadata = UploadMetadata.parse(
        Object.fromEntries(Object.entries(upload.metadata ?? {}).filter(([, value]) => value !== null)),
      )
      try {
        const dataset = await app.datasets.startImport({
          name: metadata.name,
          format: metadata.format,
          uploadPath: join(app.home.uploads, upload.id),
          uploadId: upload.id,
          sourceBytes: upload.size ?? upload.offset,
        })
        return { headers: { [DATASET_ID_HEADER]: dataset.id } }
      } catch (err) {
        app.log.error({ err, uploadId: upload.id }, 'could not start processing a finished upload')
        throw tusReject(
          503,
          'UPLOAD_NOT_PROCESSED',
          'the upload finished but could not be processed; retry later',
        )
      }
    },
  })

  // tus reads the body itself: leave chunk bodies unparsed (and out of Fastify's bodyLimit).
  app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null))

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.hijack()
    await tus.handle(request.raw, reply.raw)
  }
  app.all('/files', { schema: { hide: true } }, handle)
  app.all('/files/*', { schema: { hide: true } }, handle)
}
