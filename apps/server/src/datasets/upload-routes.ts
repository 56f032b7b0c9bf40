import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { DATASET_ID_HEADER, TUS_PATH, UploadMetadata } from '@codebook/shared'
import { FileStore } from '@tus/file-store'
import { Server as TusServer } from '@tus/server'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'

/** The route of one upload's requests (`PATCH`, `HEAD`, `DELETE` of `<TUS_PATH>/<id>`). */
export const TUS_UPLOAD_ROUTE = `${TUS_PATH}/*`

/** Options of {@link uploadRoutes}. */
export interface UploadRoutesOptions {
  maxUploadBytes: number
  /** Origins besides the server's own allowed to upload cross-origin (CODEBOOK_ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[]
  /** Unfinished uploads are deleted this long after their creation (tus expiration extension). */
  expiryMs: number
}

/** How often abandoned uploads are looked for: a tenth of the expiry, between a minute and an hour. */
function sweepInterval(expiryMs: number): number {
  return Math.min(3600_000, Math.max(60_000, expiryMs / 10))
}

/** A tus hook rejection: the tus server answers with this status and body (JSON the client can show). */
function tusReject(status: number, code: string, message: string): { status_code: number; body: string } {
  return { status_code: status, body: JSON.stringify({ code, message }) }
}

/**
 * Resumable uploads (tus 1.0 with creation, termination, expiration-free file store) at `TUS_PATH` (`/files`).
 * Fastify only routes; the tus server reads the raw request. When an upload completes the
 * dataset record is created and its id returned in the `Codebook-Dataset-Id` header.
 */
export const uploadRoutes: FastifyPluginAsync<UploadRoutesOptions> = async (app, options) => {
  const tus = new TusServer({
    path: TUS_PATH,
    datastore: new FileStore({
      directory: app.home.uploads,
      expirationPeriodInMilliseconds: options.expiryMs,
    }),
    // No '*': the UI is same-origin and needs no CORS header; only configured origins get one.
    allowedOrigins: [...options.allowedOrigins],
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
      const uploadPath = join(app.home.uploads, upload.id)
      const metadata = UploadMetadata.parse(
        Object.fromEntries(Object.entries(upload.metadata ?? {}).filter(([, value]) => value !== null)),
      )
      try {
        const dataset = await app.datasets.startImport({
          name: metadata.name,
          format: metadata.format,
          uploadPath,
          uploadId: upload.id,
          sourceBytes: upload.size ?? upload.offset,
        })
        return { headers: { [DATASET_ID_HEADER]: dataset.id } }
      } catch (err) {
        app.log.error({ err, uploadId: upload.id }, 'could not start processing a finished upload')
        // No record points at it, so nothing would ever delete it.
        await Promise.all([rm(uploadPath, { force: true }), rm(`${uploadPath}.json`, { force: true })])
        throw tusReject(
          503,
          'UPLOAD_NOT_PROCESSED',
          'the upload finished but could not be processed; upload the file again later',
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
  const sweep = async () => {
    try {
      const removed = await tus.cleanUpExpiredUploads()
      if (removed > 0) app.log.info({ removed }, 'expired unfinished uploads deleted')
    } catch (err) {
      app.log.warn({ err }, 'could not delete expired uploads')
    }
  }
  const timer = setInterval(sweep, sweepInterval(options.expiryMs))
  timer.unref()
  app.addHook('onReady', sweep)
  app.addHook('onClose', async () => clearInterval(timer))

  app.all(TUS_PATH, { schema: { hide: true } }, handle)
  app.all(TUS_UPLOAD_ROUTE, { schema: { hide: true } }, handle)
}
