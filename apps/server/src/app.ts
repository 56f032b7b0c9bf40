import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import fastifyRateLimit from '@fastify/rate-limit'
import fastifyStatic from '@fastify/static'
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from 'fastify'
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import { authPlugin } from './auth/auth-plugin.ts'
import type { Config } from './config.ts'
import { datasetRoutes } from './datasets/dataset-routes.ts'
import { datasetsPlugin } from './datasets/datasets-plugin.ts'
import { TUS_UPLOAD_ROUTE, uploadRoutes } from './datasets/upload-routes.ts'
import { dbPlugin } from './db/db-plugin.ts'
import { evaluationRoutes } from './evaluations/evaluation-routes.ts'
import { evaluationsPlugin } from './evaluations/evaluations-plugin.ts'
import { healthRoutes } from './health/health-routes.ts'
import { homePlugin } from './home/home-plugin.ts'
import { ApiError } from './http/api-error.ts'
import { errorPlugin, sendError } from './http/error-plugin.ts'
import { nulGuardPlugin } from './http/nul-guard.ts'
import { originPlugin } from './http/origin-policy.ts'
import { readLimitsPlugin } from './http/read-limits.ts'
import { requestLogPlugin } from './http/request-log.ts'
import { imageSetRoutes } from './image-sets/image-set-routes.ts'
import { imageSetsPlugin } from './image-sets/image-sets-plugin.ts'
import { jobsPlugin } from './jobs/jobs-plugin.ts'
import { metricsPlugin, metricsRoutes } from './metrics/metrics-plugin.ts'
import { planRoutes } from './plans/plan-routes.ts'
import { plansPlugin } from './plans/plans-plugin.ts'
import { realtimePlugin } from './realtime/realtime-plugin.ts'
import { runRoutes } from './runs/run-routes.ts'
import { runsPlugin } from './runs/runs-plugin.ts'
import { studiesPlugin } from './studies/studies-plugin.ts'
import { studyRoutes } from './studies/study-routes.ts'
import { topologiesPlugin } from './topologies/topologies-plugin.ts'
import { topologyRoutes } from './topologies/topology-routes.ts'
import { vocabulariesPlugin } from './vocabularies/vocabularies-plugin.ts'
import { vocabularyRoutes } from './vocabularies/vocabulary-routes.ts'

/** Write requests one client IP may make per minute. Generous: it guards against runaway scripts, not users. */
export const WRITE_RATE_LIMIT_PER_MINUTE = 300

/** Body limit of ordinary JSON requests; uploads have their own (CODEBOOK_MAX_UPLOAD_BYTES). */
const JSON_BODY_LIMIT = 1024 * 1024

/** Reads and tus chunk uploads are not rate limited: a multi-GB upload is thousands of PATCHes. */
function exemptFromRateLimit(request: FastifyRequest): boolean {
  const method = request.method
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return true
  // By the route that matched, not the URL's spelling.
  return method === 'PATCH' && request.routeOptions.url === TUS_UPLOAD_ROUTE
}

/**
 * Builds the server (plugins, routes, database migrated, home locked) without listening.
 * Close the returned app to release the home lock and the database.
 * @throws CodebookError `HOME_LOCKED` when another server holds `config.home`.
 */
export async function buildApp(config: Config): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel },
    // requestLogPlugin writes one redacted line per request instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    bodyLimit: JSON_BODY_LIMIT,
    // Router errors (an overlong path parameter, a malformed URL) through the one coded path too.
    frameworkErrors: (err, request, reply) => sendError(err, request, reply, config.home),
  })
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)

  const webDist = config.webDist
  const serveWeb = webDist !== undefined && existsSync(join(webDist, 'index.html'))
  if (webDist !== undefined && !serveWeb) {
    app.log.warn(
      { webDist },
      'web UI not served: no index.html there (build apps/web or set CODEBOOK_WEB_DIR)',
    )
  }

  try {
    await app.register(requestLogPlugin)
    await app.register(metricsPlugin)
    await app.register(errorPlugin, { spaFallback: serveWeb, home: config.home })
    await app.register(nulGuardPlugin)
    await app.register(originPlugin, {
      allowedOrigins: config.allowedOrigins,
      allowedHosts: config.allowedHosts,
    })
    await app.register(readLimitsPlugin, { maxReadsPerClient: config.maxReadsPerClient })
    await app.register(homePlugin, { home: config.home })
    await app.register(authPlugin, { apiToken: config.apiToken })
    await app.register(dbPlugin, { databaseUrl: config.databaseUrl, pgliteDir: app.home.db })
    await app.register(realtimePlugin, {
      allowedOrigins: config.allowedOrigins,
      allowedHosts: config.allowedHosts,
    })
    await app.register(fastifyRateLimit, {
      global: true,
      max: WRITE_RATE_LIMIT_PER_MINUTE,
      timeWindow: 60_000,
      allowList: exemptFromRateLimit,
      errorResponseBuilder: (_request, context) =>
        new ApiError(
          429,
          'RATE_LIMITED',
          `too many write requests (limit ${context.max} per minute); retry in ${context.after}`,
        ),
    })
    await app.register(fastifySwagger, {
      openapi: {
        info: {
          title: 'Codebook API',
          description:
            'Datasets, runs and vocabularies of the Codebook job server. Errors: { code, message, reqId }.',
          version: '0.1.0',
        },
      },
      transform: jsonSchemaTransform,
    })
    await app.register(fastifySwaggerUi, { routePrefix: '/docs' })
    await app.register(datasetsPlugin, {
      seedDemo: config.seedDemo,
      importOptions: { maxExpandedBytes: config.maxExpandedBytes },
      diskReserveBytes: config.diskReserveBytes,
    })
    await app.register(topologiesPlugin, { seedDemo: config.seedDemo })
    await app.register(plansPlugin)
    await app.register(jobsPlugin)
    await app.register(runsPlugin, {
      workerLaunch: config.workerLaunch,
      maxConcurrentRuns: config.maxConcurrentRuns,
      maxWorkersPerRun: config.maxWorkersPerRun,
      maxQueuedRuns: config.maxQueuedRuns,
    })
    await app.register(vocabulariesPlugin)
    await app.register(imageSetsPlugin, { seedDemo: config.seedDemo })
    await app.register(evaluationsPlugin)
    await app.register(studiesPlugin)
    await app.register(healthRoutes, {
      prefix: '/api',
      maxWorkersPerRun: config.maxWorkersPerRun,
      maxQueuedRuns: config.maxQueuedRuns,
      maxUploadBytes: config.maxUploadBytes,
    })
    await app.register(runRoutes, { prefix: '/api' })
    await app.register(vocabularyRoutes, { prefix: '/api' })
    await app.register(topologyRoutes, { prefix: '/api' })
    await app.register(planRoutes, { prefix: '/api' })
    await app.register(datasetRoutes, { prefix: '/api', maxUploadBytes: config.maxUploadBytes })
    await app.register(uploadRoutes, {
      maxUploadBytes: config.maxUploadBytes,
      allowedOrigins: config.allowedOrigins,
      expiryMs: config.uploadExpiryMs,
    })
    await app.register(imageSetRoutes, { prefix: '/api', maxUploadBytes: config.maxUploadBytes })
    await app.register(evaluationRoutes, { prefix: '/api' })
    await app.register(studyRoutes, { prefix: '/api' })
    await app.register(metricsRoutes)
    if (serveWeb) await app.register(fastifyStatic, { root: webDist })
    await app.ready()
  } catch (err) {
    await app.close().catch(() => undefined)
    throw err
  }
  return app
}
